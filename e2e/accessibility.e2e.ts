import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, inject, it } from 'vitest';
import { hydrated, useSharedContext } from './browser';

// axe-core (the engine behind Lighthouse's accessibility audits) on each page type, after hydration, on a desktop and a
// phone viewport: the WCAG 2.1 A/AA rules, plus `label-content-name-mismatch` (WCAG 2.5.3, label in name: a control's
// accessible name contains its visible text), which Lighthouse lists on desktop without scoring it.
const base = inject('docsUrl');
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PAGES = ['/', '/docs/intro', '/docs/access/guides/m2m', '/docs/api/delete-attributes-bucket-name'];

type Violation = { id: string; nodes: { target: string[] }[] };

for (const [name, viewport] of [
  ['desktop', { width: 1350, height: 940 }],
  ['phone', { width: 412, height: 823 }],
] as const) {
  describe(`accessibility on a ${name} viewport`, () => {
    // The docs server's CSP allows only its own scripts: the page is checked with axe injected, CSP bypassed.
    const context = useSharedContext({ viewport, bypassCSP: true });
    for (const route of PAGES) {
      it(`${route} has no violation`, async () => {
        const page = await context().newPage();
        await page.goto(base + route);
        await hydrated(page);
        await page.addScriptTag({ content: axeSource });
        const violations = await page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Violation[] }> } }).axe;
          const res = await axe.run(document, {
            runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
            rules: { 'label-content-name-mismatch': { enabled: true } },
          });
          return res.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        });
        expect(violations).toEqual([]);
        await page.close();
      });
    }
  });
}
