import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDocsServer } from '@keyway/docs-server';
import { siteBuild } from './paths';

/**
 * A copy of the production build served by a real docs server, whose files a test can really break: hide a file (or a
 * folder) so the server answers 404 for it, replace a file's content, then put everything back. Failure behaviours
 * are tested this way instead of intercepting the browser's requests (which would change how Chromium handles them).
 */
export interface SiteCopy {
  url: string;
  /** Removes a file of the build (with its precompressed .br/.gz siblings), or a whole folder, until `restore`. */
  hide(rel: string): void;
  /** Serves other content for a file (its precompressed siblings are hidden) until `restore`. */
  replace(rel: string, content: string): void;
  /** Puts every hidden or replaced file back as the build has it. */
  restore(): void;
  close(): Promise<void>;
}

export async function serveSiteCopy(): Promise<SiteCopy> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-e2e-site-'));
  const dir = path.join(root, 'build');
  const stash = path.join(root, 'hidden');
  fs.cpSync(siteBuild, dir, { recursive: true });
  fs.mkdirSync(stash);
  // The server reads the list of files at start: everything is present then, so a hidden file is a real 404 later.
  const server = await startDocsServer({ siteDir: dir, port: 0, assistant: false });
  const moved: string[] = [];
  const replaced: string[] = [];
  const move = (rel: string) => {
    const from = path.join(dir, rel);
    if (!fs.existsSync(from)) return;
    const to = path.join(stash, rel);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    // What an earlier hide left in the stash once restored is empty folders; they would refuse a folder moved onto them.
    fs.rmSync(to, { recursive: true, force: true });
    fs.renameSync(from, to);
    moved.push(rel);
  };
  const hide = (rel: string) => {
    if (!fs.existsSync(path.join(dir, rel))) throw new Error(`${rel} is not in the build`);
    for (const r of [rel, `${rel}.br`, `${rel}.gz`]) move(r);
  };
  return {
    url: server.url,
    hide,
    replace(rel, content) {
      hide(rel);
      fs.writeFileSync(path.join(dir, rel), content);
      replaced.push(rel);
    },
    restore() {
      for (const rel of replaced.splice(0)) fs.rmSync(path.join(dir, rel), { force: true });
      for (const rel of moved.splice(0).reverse()) fs.renameSync(path.join(stash, rel), path.join(dir, rel));
    },
    async close() {
      await server.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
