import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import { server } from './fake.js';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  vi.unstubAllGlobals();
  server.resetHandlers();
  globalThis.localStorage?.clear();
  globalThis.sessionStorage?.clear();
  vi.useRealTimers();
  vi.restoreAllMocks();
});
afterAll(() => server.close());
