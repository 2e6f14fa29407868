// `npm run build`: install what is missing, build every package and the site (forced with --force).
import { buildAll, ensureInstalled } from './lib.mjs';

ensureInstalled();
buildAll({ force: process.argv.includes('--force') });
