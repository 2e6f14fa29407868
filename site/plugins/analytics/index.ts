import path from 'node:path';
import type { LoadContext, Plugin } from '@docusaurus/types';
import { analyticsHeadTags, analyticsOptionsFromEnv } from './options';

/** Page-view analytics (GA4 through gtag) and the two asynchronous third-party tools, all configured from the environment. */
export default function analyticsPlugin(_context: LoadContext): Plugin {
  const options = analyticsOptionsFromEnv(process.env);
  return {
    name: 'keyway-analytics',
    getClientModules() {
      return options.gaTrackingId ? [path.join(__dirname, 'client.ts')] : [];
    },
    injectHtmlTags() {
      return { headTags: analyticsHeadTags(options) };
    },
  };
}
