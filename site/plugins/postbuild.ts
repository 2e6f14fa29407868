import { CONTRACT_PATH } from '@keyway/api';
import path from 'node:path';
import type { LoadContext, Plugin } from '@docusaurus/types';
import { writeSearchIndex } from './search-index';
import { writeAgentDocs } from './markdown';
import { precompress } from '@keyway/docs-server/precompress';
import { readDocsPassages } from '@keyway/docs-server/search';
import { writePassageVectors } from '@keyway/docs-server/assistant';

/**
 * What happens to the build output, in order: the search index, the assistant's passage vectors (retrieval by meaning,
 * `.assistant/`, never served) and the docs for agents (Markdown twins, llms.txt) are written, then every text file is
 * precompressed.
 */
export default function postBuildPlugin(context: LoadContext): Plugin {
  return {
    name: 'keyway-postbuild',
    async postBuild({ outDir, routesPaths }) {
      const sections = await writeSearchIndex(outDir, routesPaths);
      // Every docs page's passages, gated ones included (the server answers signed-in readers from them too).
      // Vectors of passages an earlier build on this machine embedded are reused (node_modules/.cache, as webpack's).
      const cacheDir = path.join(context.siteDir, 'node_modules', '.cache', 'keyway-assistant-vectors');
      const vectors = await writePassageVectors(outDir, await readDocsPassages(outDir, []), { cacheDir });
      console.log(
        `[keyway] assistant: ${vectors.count} passage vectors (${(vectors.bytes / 1024).toFixed(0)} KiB; ${vectors.embedded} embedded, ${vectors.count - vectors.embedded} from earlier builds) in ${(vectors.ms / 1000).toFixed(1)} s`,
      );
      const agents = await writeAgentDocs(outDir, routesPaths, context.siteConfig.url, CONTRACT_PATH);
      console.log(`[keyway] docs for agents: ${agents.publicPages} public and ${agents.gatedPages} gated Markdown twins, llms.txt, llms-full.txt`);
      const c = await precompress(outDir);
      console.log(
        `[keyway] search index: ${sections} passages; precompressed ${c.files} files, ${(c.bytes / 1024).toFixed(0)} KiB -> ${(c.brotliBytes / 1024).toFixed(0)} KiB brotli`,
      );
    },
  };
}
