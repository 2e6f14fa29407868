import { vi } from 'vitest';

/** A stand-in for a window returned by window.open. */
export function fakeWindow() {
  const w = {
    closed: false,
    document: { body: { textContent: '' } },
    location: { href: '' },
    close: vi.fn(() => {
      w.closed = true;
    }),
    focus: vi.fn(),
    postMessage: vi.fn(),
  };
  return w;
}

/** Mocks window.open; returns the calls and the window handed out. */
export function mockOpen<W extends ReturnType<typeof fakeWindow> | null = ReturnType<typeof fakeWindow>>(
  w: W = fakeWindow() as W,
) {
  const open = vi.spyOn(window, 'open').mockImplementation(() => w as unknown as Window);
  return { open, w };
}

/** Delivers a message to this window as if `source` had posted it. */
export function deliver(data: unknown, source: unknown, origin = location.origin) {
  const e = new MessageEvent('message', { data, origin });
  Object.defineProperty(e, 'source', { value: source });
  window.dispatchEvent(e);
}
