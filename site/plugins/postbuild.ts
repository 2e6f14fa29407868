import type { LoadContext, Plugin } from '@docusaurus/types';
import { writeSearchIndex } from './search-index';
import { precompress } from './precompress';

/** What happens to the build output, in order: the search index is written, then every text file is precompressed. */
export default function postBuildPlugin(_context: LoadContext): Plugin {
  return {
    name: 'keyway-postbuild',
    async postBuild({ outDir, routesPaths }) {
      const sections = await writeSearchIndex(outDir, routesPaths);
      const c = await precompress(outDir);
      console.log(
        `[keyway] search index: ${sections} passages; precompressed ${c.files} files, ${(c.bytes / 1024).toFixed(0)} KiB -> ${(c.brotliBytes / 1024).toFixed(0)} KiB brotli`,
      );
    },
  };
}
