import { startDocsServer, type StartedDocsServer } from '@keyway/docs-server';
import { startTestIdentityServer, type TestServer } from '@keyway/identity-server/testing';
import { freePort } from './net';
import { siteBuild } from './paths';

/** The gated portal as a reader meets it: a site build behind a docs server with sign-in, and a real identity server. */
export interface GatedPortal {
  /** The docs server's origin (`http://127.0.0.1:<port>`), allowed by the identity server's CORS. */
  base: string;
  identity: TestServer;
  docs: StartedDocsServer;
  close(): Promise<void>;
}

/**
 * Starts an identity server on a fresh database (SQLite in a temp folder) and a docs server gated by it, on free ports.
 * GATE_E2E_SITE_DIR points it at another build of the site.
 */
export async function startGatedPortal(): Promise<GatedPortal> {
  const docsPort = await freePort();
  const base = `http://127.0.0.1:${docsPort}`;
  const identity = await startTestIdentityServer({ corsOrigins: [base] });
  const siteDir = process.env.GATE_E2E_SITE_DIR ?? siteBuild;
  const docs = await startDocsServer({ siteDir, port: docsPort, gate: { identityUrl: identity.url, orgId: identity.orgId } });
  return {
    base,
    identity,
    docs,
    async close() {
      await docs.close();
      // A suite may already have stopped the identity server (an outage test).
      await identity.stop().catch(() => undefined);
    },
  };
}
