// The route component of every API reference page (operations and categories; see site/plugins/api-reference). It
// renders the page's data inside the theme's own doc layout (sidebar, table of contents, pagination), as if the page
// were a doc of the `api` docs instance, without being one: docs cost every page of the site their route and metadata.
import React, { useEffect, useMemo, type ReactNode } from 'react';
import clsx from 'clsx';
import { HtmlClassNameProvider, ThemeClassNames } from '@docusaurus/theme-common';
import { DocsSidebarProvider, DocsVersionProvider } from '@docusaurus/plugin-content-docs/client';
import type { PropDocContent, PropVersionMetadata } from '@docusaurus/plugin-content-docs';
import { useLocation } from '@docusaurus/router';
import DocItem from '@theme/DocItem';
import DocRootLayout from '@theme/DocRoot/Layout';
import Layout from '@theme/Layout';
import NotFound from '@theme/NotFound';
import sidebar from '@keyway/api-reference-sidebar';
import { DATA_ELEMENT_ID, permalinkOf, scriptJson, useReferencePage } from './pageData';
import ReferenceContent from './ReferenceContent';
import { ReferencePageContext } from './referencePageContext';
import type { ReferencePageData } from './types';
import styles from './styles.module.css';

const FOUND = { found: true };
const NOT_FOUND = { found: false };

const VERSION: PropVersionMetadata = {
  pluginId: 'api',
  version: 'current',
  label: 'Next',
  banner: null,
  badge: false,
  noIndex: false,
  className: 'docs-version-current',
  isLast: true,
  docsSidebars: {},
  docs: {},
};

/** The page as the docs theme expects a doc's compiled MDX module: a component carrying its metadata. */
function docContent(data: ReferencePageData): PropDocContent {
  const Content = (): ReactNode => <ReferenceContent data={data} />;
  const id = `api/${data.permalink.split('/').pop() ?? ''}`;
  // Operation pages use the width for their two columns (see ReferenceContent): no table of contents beside them.
  // Their keywords go to `<meta name="keywords">` as a doc's front-matter `keywords` do (the search index reads them).
  const frontMatter = { ...(data.kind === 'operation' ? { hide_table_of_contents: true } : {}), ...(data.keywords?.length ? { keywords: data.keywords } : {}) };
  return Object.assign(Content, {
    metadata: {
      id,
      title: data.title,
      description: data.description,
      source: '@site/api/openapi.yaml',
      sourceDirName: '.',
      slug: data.permalink,
      permalink: data.permalink,
      draft: false,
      unlisted: false,
      tags: [],
      version: 'current',
      frontMatter,
      sidebar: 'api',
      previous: data.previous,
      next: data.next,
    },
    frontMatter,
    toc: data.toc,
    contentTitle: undefined,
    assets: {},
  }) as unknown as PropDocContent;
}

function Status({ children }: { children: ReactNode }): ReactNode {
  return (
    <div className="container padding-vert--lg" role="status">
      {children}
    </div>
  );
}

/**
 * A page whose data could not be fetched on client-side navigation: as for doc pages whose code cannot be fetched, the
 * browser loads the address fully (the server sends the page with its data, or its real error page).
 */
function ReloadOnFailure({ permalink, message, retry }: { permalink: string; message: string; retry: () => void }): ReactNode {
  useEffect(() => {
    if (window.location.pathname === permalink) window.location.reload();
  }, [permalink]);
  return (
    <Status>
      <p>This page could not be loaded: {message}. Reloading…</p>
      <button type="button" className="button button--primary" onClick={retry}>
        Retry
      </button>
    </Status>
  );
}

export default function ReferencePage(): ReactNode {
  const permalink = permalinkOf(useLocation().pathname);
  const { state, retry } = useReferencePage(permalink);
  const content = useMemo(() => (state.status === 'ready' ? docContent(state.data) : undefined), [state]);
  if (state.status === 'not-found') {
    // What the server's not-found page shows, so that it hydrates as it is.
    return (
      <ReferencePageContext.Provider value={NOT_FOUND}>
        <NotFound />
      </ReferencePageContext.Provider>
    );
  }
  return (
    <ReferencePageContext.Provider value={FOUND}>
      <HtmlClassNameProvider className={clsx(ThemeClassNames.wrapper.docsPages, 'plugin-docs', 'plugin-id-api', VERSION.className, ThemeClassNames.page.docsDocPage)}>
        <Layout>
          <DocsVersionProvider version={VERSION}>
            <DocsSidebarProvider name="api" items={sidebar}>
              <DocRootLayout>
                {content && state.status === 'ready' ? (
                  <>
                    <DocItem route={{ path: permalink, component: ReferencePage, exact: true }} content={content} />
                    {state.fromServer && (
                      <script type="application/json" id={DATA_ELEMENT_ID} data-permalink={permalink} dangerouslySetInnerHTML={{ __html: scriptJson(state.data) }} />
                    )}
                  </>
                ) : state.status === 'error' ? (
                  <ReloadOnFailure permalink={permalink} message={state.message} retry={retry} />
                ) : (
                  <Status>
                    <div className={styles.spinner} aria-hidden="true" data-testid="api-spinner" />
                    <span className={styles.visuallyHidden}>Loading the page…</span>
                  </Status>
                )}
              </DocRootLayout>
            </DocsSidebarProvider>
          </DocsVersionProvider>
        </Layout>
      </HtmlClassNameProvider>
    </ReferencePageContext.Provider>
  );
}
