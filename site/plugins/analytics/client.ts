import type { ClientModule } from '@docusaurus/types';

declare global {
  interface Window {
    gtag?: (...args: unknown[]) => void;
  }
}

// The first page view is sent by `gtag('config', …)`; this sends one for every later route change
// in which the path, the query or the hash differs.
const clientModule: ClientModule = {
  onRouteDidUpdate({ location, previousLocation }) {
    if (!previousLocation) return;
    const page = location.pathname + location.search + location.hash;
    if (page === previousLocation.pathname + previousLocation.search + previousLocation.hash) return;
    // The document title is updated on the next tick; read it then.
    window.setTimeout(() => {
      window.gtag?.('event', 'page_view', {
        page_title: document.title,
        page_location: window.location.href,
        page_path: page,
      });
    });
  },
};

export default clientModule;
