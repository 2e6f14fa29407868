import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Writes a miniature site build (relative path → content) into a new temporary directory; returns it. */
export function writeSite(prefix: string, files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [rel, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), body);
  }
  return dir;
}

export { anonymousTokenAt, signInAt } from '@keyway/identity-server/testing';
