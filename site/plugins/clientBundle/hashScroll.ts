import type { ClientModule } from '@docusaurus/types';

/**
 * Scrolls to the hash target once the new page is in the document (browser bundle on preact/compat only).
 *
 * Docusaurus scrolls to `location.hash` (or to the top) in a layout effect of its `ClientLifecyclesDispatcher`, which
 * sits above the routes. The routes are one element made once at module level (`routesElement` in the core's
 * App.js), so on a navigation the renderer bails out of that unchanged element and the new location reaches the
 * routes only through React Router's context. React re-renders context consumers in the same pass, before any layout
 * effect runs. Preact queues them (its Provider enqueues every subscriber) and renders them right after the commit
 * whose layout effects run first: Docusaurus looks for the target while the previous page is still in the DOM, finds
 * nothing (or an element of the old page with the same id) and the reader stays where they were. Those queued
 * renders finish in the same task, so a microtask queued from the lifecycle (it runs in that layout effect, after
 * Docusaurus's own scroll) sees the new page, and the scroll lands before the browser paints it.
 */
const clientModule: ClientModule = {
  onRouteDidUpdate({ location, previousLocation }) {
    // Only a new page can be missing from the DOM; a hash change on the same page was handled by Docusaurus.
    if (!previousLocation || !location.hash || location.pathname === previousLocation.pathname) return;
    const id = decodeURIComponent(location.hash.slice(1));
    queueMicrotask(() => document.getElementById(id)?.scrollIntoView());
  },
};

export default clientModule;
