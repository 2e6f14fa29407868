// The open-redirect payload family: each value is what an attacker puts in `redirect_to` (decoded, as the page reads
// it). None may take a browser off the site. Shared by the SDK, @keyway/react, site and browser tests.
export const EVIL_HOST = 'evil.example';

export const OFFSITE_PAYLOADS: readonly string[] = [
  '//evil.example',
  '//evil.example/docs',
  '///evil.example',
  'https://evil.example/',
  'http:evil.example',
  'HTTPS://evil.example',
  'javascript:alert(document.domain)',
  'JaVaScRiPt:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  '/\\evil.example',
  '\\\\evil.example',
  '/\\/evil.example',
  '/.//evil.example',
  '/./\\evil.example',
  '/docs/..//evil.example',
  '/%2e//evil.example',
  '/%2E%2E//evil.example',
  '/docs/%2e%2e//evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '\t//evil.example',
  ' //evil.example',
  '/\u0000/evil.example',
  'https://evil.example@localhost/',
  '//localhost@evil.example/',
  'https://localhost:1@evil.example/',
];

/** Values that must land on the site, and the path each lands on. */
export const ONSITE_PAYLOADS: ReadonlyArray<readonly [string, string]> = [
  ['/docs/intro', '/docs/intro'],
  ['/docs/a?b=1#c', '/docs/a?b=1#c'],
  ['/docs/../docs/intro', '/docs/intro'],
  ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ['/%5C%5Cevil.example', '/%5C%5Cevil.example'],
];
