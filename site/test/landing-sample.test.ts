// The landing page's example runs as printed: its commands go through bash, curl and jq to a real identity server (only
// the host changes), and the answer the page shows is the one they print, apart from values that differ on every run
// (tokens, ids, times), which must keep their type and format.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command, output } from '../src/data/landing-sample';
import { API_HOST, startLocalServer, type LocalServer } from './docs-helpers';

/** Replaces values that change on every run by their shape, so two answers compare. */
export function shapeOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(shapeOf);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shapeOf(x)]));
  if (typeof v === 'string') {
    if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v)) return '<time>';
    if (/^pid:[0-9a-f-]{36}$/.test(v)) return '<person id>';
    if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(v)) return '<jwt>';
  }
  if (typeof v === 'number' && !Number.isInteger(v)) return '<number>';
  return v;
}

describe('the landing page example', () => {
  let local: LocalServer;
  beforeAll(async () => {
    local = await startLocalServer();
  }, 60_000);
  afterAll(async () => {
    await local?.close();
  });

  it('prints what the page shows when run against the local server', async () => {
    expect(command).toContain(API_HOST);
    // Asynchronously: the server runs in this process.
    const { stdout: printed } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', command.replaceAll(API_HOST, local.live.url)], { timeout: 30_000 });
    const real = JSON.parse(printed) as { result: { expires_in_seconds: number } };
    const shown = JSON.parse(output) as { result: { expires_in_seconds: number } };
    // A fresh token: its remaining lifetime is the server's token lifetime, give or take the seconds the run took.
    expect(Math.abs(real.result.expires_in_seconds - shown.result.expires_in_seconds)).toBeLessThan(30);
    const same = (x: { result: object }) => shapeOf({ ...x, result: { ...x.result, expires_in_seconds: 0 } });
    expect(same(shown)).toEqual(same(real));
    // jq's formatting, as a terminal shows it.
    expect(output).toBe(JSON.stringify(shown, null, 2));
  });
});
