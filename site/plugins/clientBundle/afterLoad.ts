/**
 * Code that a page does not need to paint or hydrate starts loading here: once the page's `load` event has fired and
 * the browser is idle, or at the visitor's first interaction (pointer, key, touch) if that comes sooner. So it is
 * never part of the page's first-load JavaScript and never competes with hydration.
 */
let ready: Promise<void> | undefined;

const INTERACTIONS = ['pointerdown', 'keydown', 'touchstart'] as const;

export function afterLoad(): Promise<void> {
  ready ??= new Promise<void>((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      for (const type of INTERACTIONS) window.removeEventListener(type, finish, true);
      resolve();
    };
    // Safari (16.4+, see the README's browser list) has no requestIdleCallback: a short timeout stands in for it.
    const whenIdle = () => ('requestIdleCallback' in window ? requestIdleCallback(finish, { timeout: 2000 }) : setTimeout(finish, 200));
    if (document.readyState === 'complete') whenIdle();
    else window.addEventListener('load', whenIdle, { once: true });
    for (const type of INTERACTIONS) window.addEventListener(type, finish, { capture: true, passive: true });
  });
  return ready;
}

/** Resolves at the visitor's next interaction: when to try again after a chunk failed to load (a network drop). */
export function nextInteraction(): Promise<void> {
  return new Promise<void>((resolve) => {
    const finish = () => {
      for (const type of INTERACTIONS) window.removeEventListener(type, finish, true);
      resolve();
    };
    for (const type of INTERACTIONS) window.addEventListener(type, finish, { capture: true, passive: true });
  });
}
