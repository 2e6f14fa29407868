/** The real identity server, in-process with a temporary database, for the component tests. */
import { cleanup } from '@testing-library/react';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startServer, type TestServer } from './api.js';

export { answerMailedLink, eventually, mailbox, manage, newEmail, startServer, type TestServer } from './api.js';

/**
 * Starts a server for the test file (closed after it), and after each test unmounts what was
 * rendered and clears the storage. `server.api` is usable inside tests.
 */
export function serverForSuite(): TestServer {
  let s: TestServer | undefined;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s?.close());
  afterEach(() => {
    cleanup();
    localStorage.clear();
    sessionStorage.clear();
  });
  return {
    get api() {
      if (!s) throw new Error('the test server is not started yet');
      return s.api;
    },
    close: () => s!.close(),
  };
}
