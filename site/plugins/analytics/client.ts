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
    // The new document title is written by react-helmet in an animation frame after the route update: read it then.
    // Hidden tabs get no animation frames, so they send on the next tick instead.
    const send = () =>
      window.gtag?.('event', 'page_view', {
        page_title: document.title,
        page_location: window.location.href,
        page_path: page,
      });
    if (document.visibilityState === 'visible') window.requestAnimationFrame(() => window.setTimeout(send));
    else window.setTimeout(send);
  },
};

export default clientModule;
