import { describe, expect, it, vi } from 'vitest';

// `@docusaurus/router` is a bundler alias of Docusaurus for react-router-dom's exports.
vi.mock('@docusaurus/router', async () => ({ matchPath: (await import('react-router-dom')).matchPath }));
import * as original from '@docusaurus/plugin-content-docs/lib/client/docsClientUtils.js';
import * as remembered from './docsClientUtils';

// The docs plugin's global data, shaped as the plugin writes it: one version at /docs with a few docs.
function pluginData() {
  const docs = ['intro', 'access/guides/m2m', 'gate/plugins/http-only'].map((id) => ({ id, path: `/docs/${id}`, sidebar: 'docs' }));
  return {
    path: '/docs',
    breadcrumbs: true,
    versions: [{ name: 'current', label: 'Next', isLast: true, path: '/docs', mainDocId: 'intro', docs, draftIds: [], sidebars: {} }],
  } as unknown as Parameters<typeof original.getActiveDocContext>[0];
}

describe('the docs plugin lookups, remembered per pathname', () => {
  it('give the plugin’s own answers, and the same object for the same data and pathname', () => {
    const data = pluginData();
    for (const pathname of ['/docs/intro', '/docs/access/guides/m2m', '/docs/gate/plugins/http-only/', '/docs/nope', '/blog']) {
      expect(remembered.getActiveDocContext(data, pathname)).toEqual(original.getActiveDocContext(data, pathname));
      expect(remembered.getActiveVersion(data, pathname)).toEqual(original.getActiveVersion(data, pathname));
      expect(remembered.getDocVersionSuggestions(data, pathname)).toEqual(original.getDocVersionSuggestions(data, pathname));
      expect(remembered.getActiveDocContext(data, pathname)).toBe(remembered.getActiveDocContext(data, pathname));
    }
    expect(remembered.getActiveDocContext(data, '/docs/intro').activeDoc?.id).toBe('intro');
    expect(remembered.getActiveDocContext(data, '/docs/access/guides/m2m').activeDoc?.id).toBe('access/guides/m2m');
  });

  it('find the same doc as the plugin for every spelling of a path, over many docs and two versions', () => {
    const ids = Array.from({ length: 300 }, (_, i) => `section-${i % 7}/page-${i}`).concat(['Mixed/CaseDoc', 'trailing/']);
    const version = (name: string, path: string, isLast: boolean) => ({
      name, label: name, isLast, path, mainDocId: ids[0], draftIds: [], sidebars: {},
      docs: ids.map((id) => ({ id: id.replace(/\/$/, ''), path: `${path}/${id}`, sidebar: 'docs' })),
    });
    const data = {
      path: '/docs',
      breadcrumbs: true,
      versions: [version('current', '/docs/next', false), version('1.0', '/docs', true)],
    } as unknown as Parameters<typeof original.getActiveDocContext>[0];
    const pathnames = ['/docs/section-3/page-10', '/docs/section-3/page-10/', '/DOCS/Section-3/PAGE-10', '/docs/section-3/page-10//',
      '/docs/next/section-0/page-7', '/docs/next/section-0/page-7/', '/docs/mixed/casedoc', '/docs/Mixed/CaseDoc/', '/docs/trailing',
      '/docs/trailing/', '/docs/trailing//', '/docs/section-3', '/docs/section-3/page-1000', '/docs', '/docs/', '/', '/blog/post', ''];
    for (const pathname of pathnames) {
      expect(remembered.getActiveDocContext(data, pathname), pathname).toEqual(original.getActiveDocContext(data, pathname));
      expect(remembered.getDocVersionSuggestions(data, pathname), pathname).toEqual(original.getDocVersionSuggestions(data, pathname));
    }
    expect(remembered.getActiveDocContext(data, '/DOCS/Section-3/PAGE-10').activeDoc?.id).toBe('section-3/page-10');
    expect(remembered.getActiveDocContext(data, '/docs/next/section-0/page-7/').alternateDocVersions['1.0']?.path).toBe('/docs/section-0/page-7');
  });

  it('leave a version whose doc paths use the router’s pattern syntax to the plugin', () => {
    const data = {
      path: '/docs',
      breadcrumbs: true,
      versions: [{ name: 'current', label: 'Next', isLast: true, path: '/docs', mainDocId: 'a', draftIds: [], sidebars: {},
        docs: [{ id: 'a', path: '/docs/a', sidebar: 'docs' }, { id: 'any', path: '/docs/:slug', sidebar: 'docs' }, { id: 'b', path: '/docs/b', sidebar: 'docs' }] }],
    } as unknown as Parameters<typeof original.getActiveDocContext>[0];
    for (const pathname of ['/docs/a', '/docs/b', '/docs/whatever', '/docs/whatever/'])
      expect(remembered.getActiveDocContext(data, pathname), pathname).toEqual(original.getActiveDocContext(data, pathname));
    expect(remembered.getActiveDocContext(data, '/docs/b').activeDoc?.id).toBe('any');
  });

  it('answer each pathname and each data object for itself', () => {
    const data = pluginData();
    const other = pluginData();
    const intro = remembered.getActiveDocContext(data, '/docs/intro');
    expect(remembered.getActiveDocContext(data, '/docs/access/guides/m2m')).not.toBe(intro);
    expect(remembered.getActiveDocContext(other, '/docs/intro')).not.toBe(intro);
    expect(remembered.getActiveDocContext(other, '/docs/intro')).toEqual(intro);
  });

  it('pick the same plugin as the plugin among nested paths, without localeCompare', () => {
    const at = (path: string) => ({ ...pluginData(), path });
    const all = { default: at('/docs'), api: at('/docs/api'), queries: at('/docs/identity-protection/queries'), detections: at('/docs/identity-protection/detections'), apiv2: at('/docs/api-v2') } as unknown as Parameters<typeof original.getActivePlugin>[0];
    const pathnames = ['/docs/intro', '/docs/api', '/docs/api/', '/docs/api/post-persons', '/docs/api-v2/x', '/DOCS/API/x', '/docs/identity-protection/queries/guide', '/docs/identity-protection', '/docs/identity-protection/detections/'];
    const expected = pathnames.map((pathname) => original.getActivePlugin(all, pathname)?.pluginId);
    const compare = String.prototype.localeCompare;
    let calls = 0;
    String.prototype.localeCompare = function (this: string, ...args: Parameters<typeof compare>) {
      calls++;
      return compare.apply(this, args);
    };
    try {
      expect(pathnames.map((pathname) => remembered.getActivePlugin(all, pathname)?.pluginId)).toEqual(expected);
      expect(remembered.getActivePlugin(all, '/pricing')).toBeUndefined();
    } finally {
      String.prototype.localeCompare = compare;
    }
    expect(expected).toEqual(['default', 'api', 'api', 'api', 'apiv2', 'api', 'queries', 'default', 'detections']);
    expect(calls).toBe(0);
  });

  it('find the active plugin as the plugin does, and still throw with failfast when none matches', () => {
    const all = { default: pluginData() } as unknown as Parameters<typeof original.getActivePlugin>[0];
    expect(remembered.getActivePlugin(all, '/docs/intro')).toEqual(original.getActivePlugin(all, '/docs/intro'));
    expect(remembered.getActivePlugin(all, '/docs/intro')).toBe(remembered.getActivePlugin(all, '/docs/intro'));
    expect(remembered.getActivePlugin(all, '/pricing')).toBeUndefined();
    expect(() => remembered.getActivePlugin(all, '/pricing', { failfast: true })).toThrow(/Can't find active docs plugin/);
    expect(() => remembered.getActivePlugin(all, '/pricing', { failfast: true })).toThrow(/Can't find active docs plugin/);
  });
});
