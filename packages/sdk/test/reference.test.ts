// @vitest-environment node
// Generates the TypeDoc reference into a temporary folder and checks every page the way the site will
// use it: compiles with @mdx-js/mdx in the format its extension implies, front matter present,
// every relative link resolving to a generated page, and the routes the site promises present.
import { compile } from '@mdx-js/mdx';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Where the site puts the reference: links leaving it point at the docs beside it. */
const siteSdkDir = path.resolve(root, '../../site/docs/access/sdk');
let out = '';
let pages: string[] = [];

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(path.join(dir, d.name)) : [path.join(dir, d.name)],
  );
}

beforeAll(() => {
  out = mkdtempSync(path.join(tmpdir(), 'keyway-sdk-ref-'));
  execFileSync(process.execPath, ['scripts/reference.mjs', '--out', out], { cwd: root, stdio: 'pipe' });
  pages = walk(out).filter((f) => /\.mdx?$/.test(f));
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('generated SDK reference', () => {
  it('has the routes the site links to', () => {
    const need = [
      'modules.md',
      'modules/Types.md',
      'namespaces/errors.md',
      'classes/Keyway.md',
      'classes/KeywayClient.md',
      'classes/User.md',
      'classes/AnonymousUser.md',
      'classes/FlowCancelledError.md',
      'enums/HelperMessageType.md',
      ...[
        'OTPChallenge', 'OTPAttestation', 'PasswordSetChallenge', 'PasswordVerifyChallenge', 'PasswordResetChallenge',
        'PasswordAttestation', 'TOTPRegisterChallenge', 'TOTPVerifyChallenge', 'TOTPAttestation', 'WebAuthnCreateChallenge',
        'WebAuthnGetChallenge', 'WebAuthnAttestation', 'SAMLChallenge', 'SAMLAttestation', 'OIDCChallenge', 'OIDCAttestation',
        'NonceChallenge', 'NonceAttestation', 'ProxyChallenge', 'ProxyAttestation', 'UICustomizationChallenge',
        'UICustomizationOptions', 'GDPRConsent', 'GDPRConsentRequest', 'BucketAttributes', 'Organization',
        'OrganizationHierarchyEntry', 'OAuthTokenResponse', 'UserTokenClaims', 'TokenContainer', 'TokenValidationRequest',
        'TokenValidationResponse', 'Person', 'AnonymousPersonRequest', 'ImpersonationRequest', 'ImpersonationResponse',
        'SSOResolveRequest', 'SDKEvents', 'TokenResponse', 'Attributes', 'MeResponse', 'FlowFailedEvent', 'OIDCFactorOptions', 'SAMLFactorOptions', 'WebAuthnFactorOptions',
      ].map((i) => `interfaces/${i}.md`),
    ];
    const missing = need.filter((p) => !existsSync(path.join(out, p)));
    expect(missing).toEqual([]);
  });

  it('every page compiles with @mdx-js/mdx in the format of its extension', { timeout: 60_000 }, async () => {
    expect(pages.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const file of pages) {
      try {
        await compile(readFileSync(file, 'utf8'), { format: file.endsWith('.mdx') ? 'mdx' : 'md' });
      } catch (e) {
        failures.push(`${path.relative(out, file)}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('every page has a title and a sidebar label in its front matter', () => {
    const bad = pages.filter((f) => !/^---\n(?=[\s\S]*^title: .+$)(?=[\s\S]*^sidebar_label: .+$)[\s\S]*?\n---\n/m.test(readFileSync(f, 'utf8')));
    expect(bad.map((f) => path.relative(out, f))).toEqual([]);
  });

  it('every relative link points at a generated page (and anchors exist)', () => {
    const broken: string[] = [];
    for (const file of pages) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, href] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(href!)) continue;
        if (href!.startsWith('/')) {
          broken.push(`${path.relative(out, file)} -> ${href} (absolute links must be /docs/access/sdk/...)`);
          continue;
        }
        const [target, anchor] = href!.split('#');
        const resolved = target ? path.resolve(path.dirname(file), target) : file;
        // The hand-written opening of the index links to guides beside the reference (site/docs/access/...).
        const abs = path.relative(out, resolved).startsWith('..') ? path.resolve(siteSdkDir, path.relative(out, resolved)) : resolved;
        if (!existsSync(abs)) {
          broken.push(`${path.relative(out, file)} -> ${href}`);
          continue;
        }
        if (anchor) {
          const slugs = new Set(
            [...readFileSync(abs, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map(([, h]) =>
              h!.toLowerCase().replace(/[`*\\]/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').trim().replace(/\s/g, '-'),
            ),
          );
          if (!slugs.has(anchor)) broken.push(`${path.relative(out, file)} -> ${href} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
