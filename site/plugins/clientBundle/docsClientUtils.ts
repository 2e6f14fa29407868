/**
 * Stands in, in the browser bundle, for the docs plugin's `lib/client/docsClientUtils` (see ./index.ts): the same
 * functions and answers, worked out faster.
 *
 * Every navbar doc item, the version items and the doc page itself ask "which plugin, version and doc is this
 * pathname?" on every render, and the plugin answers by running the router's `matchPath` over every doc of the
 * version (266 here), compiling a regular expression for each doc's path the first time. A CPU profile of a doc
 * page's first hydration put about 25 ms in that first answer and more in the repeats (issue #19). Here:
 * - each answer is remembered per (plugin data, pathname): the plugin's global data is one object per build, never
 *   mutated, so the answer cannot change;
 * - the doc at a pathname is looked up in a table of the version's doc paths, when every one of them is a plain
 *   path (no `:param`, `*`, group or escape, ASCII only). For such a path `matchPath(pathname, { exact: true,
 *   strict: false })` matches exactly the pathnames equal to it ignoring case, with or without one trailing slash,
 *   and the table keys are that. Any other path and the plugin's own function answers.
 * - the active plugin is found without `localeCompare` (see `getActivePlugin`).
 * A pathname that finds no plugin is not remembered, so `failfast` still throws each time.
 */
import type { ActiveDocContext, GlobalPluginData, GlobalVersion, GlobalDoc } from '@docusaurus/plugin-content-docs/client';
import * as original from '@docusaurus/plugin-content-docs/lib/client/docsClientUtils.js';
import { matchPath } from '@docusaurus/router';

/** `fn(data, pathname)` remembered per data object (weakly) and pathname; `undefined` results are not kept. */
export function rememberByDataAndPath<D extends object, R>(fn: (data: D, pathname: string) => R): (data: D, pathname: string) => R {
  const cache = new WeakMap<D, Map<string, R>>();
  return (data, pathname) => {
    let byPath = cache.get(data);
    if (!byPath) cache.set(data, (byPath = new Map()));
    if (byPath.has(pathname)) return byPath.get(pathname) as R;
    const result = fn(data, pathname);
    if (result !== undefined) byPath.set(pathname, result);
    return result;
  };
}

/** Descending code-unit order: a path comes after every path that extends it ("/docs/api" before "/docs"). */
const longerFirst = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

const activePlugin = rememberByDataAndPath((allPluginData: Parameters<typeof original.getActivePlugin>[0], pathname: string) => {
  const entry = Object.entries(allPluginData)
    .sort(([, a], [, b]) => longerFirst(a.path, b.path))
    .find(([, data]) => !!matchPath(pathname, { path: data.path, exact: false, strict: false }));
  return entry ? { pluginId: entry[0], pluginData: entry[1] } : undefined;
});

/**
 * The plugin sorts the plugins' paths with `localeCompare`, whose first call in a page sets up the browser's
 * collator: 16 ms of main thread in Chromium on this machine, inside the first hydration (64 ms on Lighthouse's phone
 * profile, past its 50 ms long-task line on its own). Its only purpose is that a path comes before the paths it is a
 * prefix of, which plain code-unit order gives too.
 */
export const getActivePlugin: typeof original.getActivePlugin = (allPluginData, pathname, options = {}) => {
  const found = activePlugin(allPluginData, pathname);
  // None found and asked to fail: the plugin's own call throws, in its own words.
  return found ?? (options.failfast ? original.getActivePlugin(allPluginData, pathname, options) : undefined);
};
export const getLatestVersion = original.getLatestVersion;
export const getActiveVersion = rememberByDataAndPath(original.getActiveVersion);

/** The key a plain path matches under: lower case, without one trailing slash. */
const pathKey = (pathname: string) => (pathname.endsWith('/') ? pathname.slice(0, -1) : pathname).toLowerCase();
// path-to-regexp's syntax (`:name`, `(…)`, `*`, `?`, `+`, `\`) and anything outside ASCII, whose case folding
// `toLowerCase` might not share with the regular expression's `i` flag.
const isPlainPath = (path: string) => /^[\x20-\x7e]*$/.test(path) && !/[:()*?+\\]/.test(path);

const docTables = new WeakMap<GlobalVersion, Map<string, GlobalDoc> | null>();
/** The version's docs by path key (the first doc of a key, as `find` would), or null if a path is not plain. */
function docTable(version: GlobalVersion): Map<string, GlobalDoc> | null {
  let table = docTables.get(version);
  if (table === undefined) {
    table = version.docs.every((doc) => isPlainPath(doc.path)) ? new Map() : null;
    for (const doc of version.docs) if (table && !table.has(pathKey(doc.path))) table.set(pathKey(doc.path), doc);
    docTables.set(version, table);
  }
  return table;
}

export const getActiveDocContext = rememberByDataAndPath((data: GlobalPluginData, pathname: string): ActiveDocContext => {
  const activeVersion = original.getActiveVersion(data, pathname);
  const table = activeVersion && docTable(activeVersion);
  if (activeVersion && !table) return original.getActiveDocContext(data, pathname);
  const activeDoc = table?.get(pathKey(pathname));
  const alternateDocVersions: ActiveDocContext['alternateDocVersions'] = {};
  if (activeDoc) for (const version of data.versions) for (const doc of version.docs) if (doc.id === activeDoc.id) alternateDocVersions[version.name] = doc;
  return { activeVersion, activeDoc, alternateDocVersions };
});
export const getDocVersionSuggestions = rememberByDataAndPath((data: GlobalPluginData, pathname: string) => {
  const latestVersion = original.getLatestVersion(data);
  return { latestDocSuggestion: getActiveDocContext(data, pathname).alternateDocVersions[latestVersion.name], latestVersionSuggestion: latestVersion };
});
