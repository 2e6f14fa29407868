import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
// Not `.map`: source maps (written only for `bench:site`) are never fetched by a browser.
const COMPRESSIBLE = /\.(html|js|css|json|svg|xml|txt|webmanifest)$/;
const MIN_BYTES = 1024;

async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    // A dot folder (the assistant's passage vectors, `.assistant/`) is read by the server, never sent.
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.')) yield* files(abs);
    } else if (COMPRESSIBLE.test(entry.name)) yield abs;
  }
}

/**
 * Writes `.br` (quality 11) and `.gz` (level 9) siblings for every text file of the build, so the docs server
 * sends the smallest body without compressing on each request.
 */
export async function precompress(outDir: string): Promise<{ files: number; bytes: number; brotliBytes: number }> {
  const totals = { files: 0, bytes: 0, brotliBytes: 0 };
  const jobs: Promise<void>[] = [];
  for await (const file of files(outDir)) {
    jobs.push(
      (async () => {
        const body = await fs.readFile(file);
        if (body.length < MIN_BYTES) return;
        const [br, gz] = await Promise.all([
          brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
          gzip(body, { level: 9 }),
        ]);
        await Promise.all([fs.writeFile(`${file}.br`, br), fs.writeFile(`${file}.gz`, gz)]);
        totals.files += 1;
        totals.bytes += body.length;
        totals.brotliBytes += br.length;
      })(),
    );
  }
  await Promise.all(jobs);
  return totals;
}
