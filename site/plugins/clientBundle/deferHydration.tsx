import React, { Suspense, useEffect, useState, type ReactNode } from 'react';

/**
 * Progressive hydration (browser bundle on preact/compat only, in place of src/components/DeferHydration.tsx).
 *
 * Preact hydrates a page in one synchronous pass, where React 18 (under Docusaurus's `startTransition`) yields to the
 * browser every few milliseconds; on a long page that pass was the largest task of the load (Lighthouse's Total
 * Blocking Time). A region wrapped in this component is left as the server rendered it during that pass — a component
 * that suspends while Preact hydrates keeps its one server element in place, as ./lazyCodeBlock.tsx relies on — and
 * is hydrated right after, each region in a task of its own (a message-channel task, so no timer clamping), in
 * document order. At the visitor's first pointer, key or touch every waiting region is hydrated at once, so a click
 * is never lost to a region that is still static. A region first rendered in the browser (a page opened by a link)
 * renders at once.
 */
type Gate = { open: boolean; promise?: Promise<void> };

const waiting: (() => void)[] = [];
let pumping = false;
let firstPassDone = false;
const channel = typeof MessageChannel === 'undefined' ? undefined : new MessageChannel();

function nextTask(fn: () => void): void {
  if (!channel) {
    setTimeout(fn, 0);
    return;
  }
  channel.port1.onmessage = () => fn();
  channel.port2.postMessage(null);
}

function pump(): void {
  waiting.shift()?.();
  if (waiting.length) nextTask(pump);
  else pumping = false;
}

function openAll(): void {
  while (waiting.length) waiting.shift()!();
}

if (typeof window !== 'undefined') {
  for (const type of ['pointerdown', 'keydown', 'touchstart'] as const) window.addEventListener(type, openAll, { capture: true, passive: true });
}

function makeGate(): Gate {
  if (firstPassDone) return { open: true };
  const gate: Gate = { open: false };
  gate.promise = new Promise<void>((resolve) => {
    waiting.push(() => {
      gate.open = true;
      resolve();
    });
  });
  return gate;
}

function Waiter({ gate, children }: { gate: Gate; children: ReactNode }): ReactNode {
  if (!gate.open) throw gate.promise;
  return children;
}

export default function DeferHydration({ children }: { children: ReactNode }): ReactNode {
  const [gate] = useState(makeGate);
  useEffect(() => {
    // The first effects run once the page's first hydration pass is committed: start hydrating the waiting regions.
    firstPassDone = true;
    if (!pumping && waiting.length) {
      pumping = true;
      nextTask(pump);
    }
  }, []);
  return (
    <Suspense fallback={null}>
      <Waiter gate={gate}>{children}</Waiter>
    </Suspense>
  );
}
