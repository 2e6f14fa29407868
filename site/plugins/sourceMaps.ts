import type { Plugin } from '@docusaurus/types';

/**
 * KEYWAY_SOURCE_MAPS=1 (set by `npm run bench:site`) writes a source map beside every browser script, without the
 * `sourceMappingURL` comment (`hidden-source-map`), so the benchmark can say which modules the bytes of each chunk
 * come from. The scripts themselves are the same as in a build without it.
 */
export default function sourceMapsPlugin(): Plugin {
  return {
    name: 'keyway-source-maps',
    configureWebpack(_config, isServer) {
      return process.env.KEYWAY_SOURCE_MAPS === '1' && !isServer ? { devtool: 'hidden-source-map' } : {};
    },
  };
}
