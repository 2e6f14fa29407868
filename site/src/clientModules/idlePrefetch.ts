import type { ClientModule } from '@docusaurus/types';

/**
 * Docusaurus prefetches the code of every page a visible link points to (and of a link under the pointer). Each
 * prefetch matches the path against the whole route table and scans every route's chunk list, about half a
 * millisecond on this site's ~1,000 routes; the links in view on a doc page asked for forty of them in one task just
 * after load (20–30 ms of main thread, a long task on a phone, measured in a Chromium trace for issue #19). Here the
 * same prefetches run when the browser is idle, a few at a time, each batch well under a long task. The original
 * `window.docusaurus` is frozen, so the object is replaced, not changed, once the app has set it.
 */
type Docusaurus = { prefetch: (path: string) => unknown; preload: (path: string) => unknown };

const queue = new Set<string>();
let scheduled = false;

function whenIdle(run: (deadline?: IdleDeadline) => void): void {
  // Safari (16.4+, see the README's browser list) has no requestIdleCallback.
  if ('requestIdleCallback' in window) requestIdleCallback(run, { timeout: 2000 });
  else setTimeout(run, 50);
}

function drain(prefetch: Docusaurus['prefetch'], deadline?: IdleDeadline): void {
  const started = performance.now();
  const budget = () => performance.now() - started < 8 && (!deadline || deadline.didTimeout || deadline.timeRemaining() > 1);
  for (const path of queue) {
    if (!budget()) break;
    queue.delete(path);
    prefetch(path);
  }
  if (queue.size) whenIdle((d) => drain(prefetch, d));
  else scheduled = false;
}

function install(): void {
  const app = (window as unknown as { docusaurus?: Docusaurus }).docusaurus;
  if (!app || (app as { idle?: true }).idle) return;
  const prefetch = app.prefetch;
  (window as unknown as { docusaurus: Docusaurus & { idle: true } }).docusaurus = Object.freeze({
    ...app,
    idle: true as const,
    prefetch(path: string) {
      queue.add(path);
      if (!scheduled) {
        scheduled = true;
        whenIdle((d) => drain(prefetch, d));
      }
      return true;
    },
  });
}

const clientModule: ClientModule = {
  // Runs on the first render too, after the app has set `window.docusaurus` and before any link is in view.
  onRouteUpdate() {
    install();
  },
};
export default clientModule;
