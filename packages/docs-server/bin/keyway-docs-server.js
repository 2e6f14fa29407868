#!/usr/bin/env node
// Committed entry point: npm links a bin only if its file exists at install time, and dist/ is a build output
// (`npm start` or `npm run build` makes it).
import '../dist/cli.js';
