import React, { useEffect, useState, type MouseEvent, type ReactNode } from 'react';
import clsx from 'clsx';
import Link from '@docusaurus/Link';
import { useHistory } from '@docusaurus/router';
import Admonition from '@theme/Admonition';
import CodeBlock from '@theme/CodeBlock';
import Heading from '@theme/Heading';
import TabItem from '@theme/TabItem';
import Tabs from '@theme/Tabs';
import ApiEndpoint from './ApiEndpoint';
import ApiMethod from './ApiMethod';
import ApiTryIt from './ApiTryIt';
import styles from './styles.module.css';
import { useReaderUrls } from '../runtimeConfig';
import { useTryItValues } from './tryItValues';
import type { FieldRow, ReferenceBlock, ReferencePageData, TryItOperation } from './types';

/**
 * Fields (of a body, parameters, response headers) as a list that wraps inside its column: name, type and whether it
 * is required on one line, the description under it, and the fields that belong to it folded under it
 * ("Show 3 child attributes"), as deep as the schema goes.
 */
function FieldList({ rows }: { rows: FieldRow[] }): ReactNode {
  const children = new Map<number, number[]>();
  rows.forEach((r, i) => children.set(r.parent, [...(children.get(r.parent) ?? []), i]));
  const list = (parent: number): ReactNode => (
    <ul className={styles.fields}>
      {(children.get(parent) ?? []).map((i) => {
        const r = rows[i] as FieldRow;
        const kids = children.get(i)?.length ?? 0;
        return (
          <li key={r.name} className={styles.fieldItem}>
            <div className={styles.fieldHead}>
              <code className={styles.fieldName}>{r.label}</code>
              {r.in && <span className={styles.fieldMeta}>{r.in}</span>}
              {r.type && <span className={styles.fieldMeta}>{r.type}</span>}
              {r.required && <span className={styles.fieldRequired}>required</span>}
            </div>
            {/* Build-time HTML from the contract's Markdown (raw HTML escaped, see render.ts). */}
            {r.html && <div className={styles.fieldText} dangerouslySetInnerHTML={{ __html: r.html }} />}
            {kids > 0 && (
              <details className={styles.fieldChildren}>
                <summary>
                  <span className={styles.showChildren}>
                    Show {kids} child attribute{kids === 1 ? '' : 's'}
                  </span>
                  <span className={styles.hideChildren}>Hide child attributes</span>
                </summary>
                {list(i)}
              </details>
            )}
          </li>
        );
      })}
    </ul>
  );
  return list(-1);
}

type SamplesBlock = Extract<ReferenceBlock, { kind: 'samples' }>;
type LiveSamples = typeof import('./liveSamples');

/**
 * The request samples: as written (for the API this docs server is configured with, which the code blocks take care
 * of) until the reader opens try-it; then for the values typed there, made again in the browser as they change.
 */
function Samples({ block, operation }: { block: SamplesBlock; operation?: TryItOperation }): ReactNode {
  const typed = useTryItValues(operation ? `${operation.method} ${operation.path}` : '');
  const { api } = useReaderUrls();
  const [live, setLive] = useState<LiveSamples>();
  useEffect(() => {
    if (!typed || live) return;
    let current = true;
    import('./liveSamples').then(
      (m) => current && setLive(() => m),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [typed, live]);
  const samples = typed && live && block.model && operation ? live.samplesWith(block.samples, block.model, operation, typed, api, block.sdk) : block.samples;
  return (
    <Tabs groupId="api-language">
      {samples.map((s) => (
        <TabItem key={s.value} value={s.value} label={s.label}>
          {/* A new block when the code changes: the first one is the server's, hydrated as it is. */}
          <CodeBlock key={s.code} language={s.language}>
            {s.code}
          </CodeBlock>
        </TabItem>
      ))}
    </Tabs>
  );
}

/**
 * Links inside the build-time HTML are plain anchors: follow the site's own ones with the client router, as <Link>
 * does, so that moving between reference pages does not reload the page.
 */
function useRouterLinks(): (event: MouseEvent<HTMLElement>) => void {
  const history = useHistory();
  return (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element).closest('a');
    const href = anchor?.getAttribute('href');
    if (!anchor || !href || anchor.target || !href.startsWith('/') || href.startsWith('//')) return;
    event.preventDefault();
    history.push(href);
  };
}

/** The badge of a deprecated operation (page, category tables). */
export function DeprecatedBadge(): ReactNode {
  return <span className={clsx('badge badge--warning', styles.deprecated)}>Deprecated</span>;
}

function Block({
  block,
  onClick,
  deprecated,
  operation,
}: {
  block: ReferenceBlock;
  onClick: (event: MouseEvent<HTMLElement>) => void;
  deprecated?: boolean;
  operation?: TryItOperation;
}): ReactNode {
  switch (block.kind) {
    case 'heading':
      return <Heading as={block.level === 2 ? 'h2' : 'h3'} id={block.id}>{block.text}</Heading>;
    case 'html':
      // The handler only routes clicks on links the browser would follow anyway; keyboard activation of a link is a click.
      // eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-static-element-interactions
      return <div className={styles.prose} onClick={onClick} dangerouslySetInnerHTML={{ __html: block.html }} />;
    case 'code':
      return <CodeBlock language={block.language}>{block.code}</CodeBlock>;
    case 'endpoint':
      return (
        <>
          {deprecated && <DeprecatedBadge />}
          <ApiEndpoint method={block.method} path={block.path} />
        </>
      );
    case 'example':
      return (
        <div className={styles.example}>
          <p className={styles.exampleLabel}>{block.label}</p>
          <CodeBlock language={block.language}>{block.code}</CodeBlock>
        </div>
      );
    case 'warning':
      return <Admonition type="warning">{block.text}</Admonition>;
    case 'samples':
      return <Samples block={block} operation={operation} />;
    case 'fields':
      // eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-static-element-interactions
      return (
        <div className={styles.prose} onClick={onClick} data-list={block.list}>
          <FieldList rows={block.rows} />
        </div>
      );
    case 'tryIt':
      return <ApiTryIt operation={block.operation} />;
    case 'operations':
      return (
        <table>
          <thead>
            <tr>
              <th>Method</th>
              <th>Operation</th>
              <th>Path</th>
            </tr>
          </thead>
          <tbody>
            {block.operations.map((o) => (
              <tr key={o.href}>
                <td>
                  <ApiMethod method={o.method} />
                </td>
                <td>
                  <Link to={o.href}>{o.title}</Link>
                  {o.deprecated && <> <DeprecatedBadge /></>}
                </td>
                <td>
                  <code>{o.path}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      );
  }
}

/**
 * The body of a reference page (the title is the doc layout's). An operation page has two columns at desktop width: the
 * description, parameters, bodies and responses, and beside them (sticky) try-it, the request samples and the example
 * response. On narrow screens that second column follows the introduction (endpoint, description, authentication), so
 * a reader sees how to call the operation before the field lists.
 */
export default function ReferenceContent({ data }: { data: ReferencePageData }): ReactNode {
  const followLink = useRouterLinks();
  const operation = data.blocks.find((b): b is Extract<ReferenceBlock, { kind: 'tryIt' }> => b.kind === 'tryIt')?.operation;
  const render = (blocks: ReferenceBlock[]) =>
    blocks.map((block, i) => <Block key={i} block={block} onClick={followLink} deprecated={data.deprecated} operation={operation} />);
  const aside = data.blocks.filter((b) => b.column === 'aside');
  if (data.kind !== 'operation' || !aside.length) return <>{render(data.blocks)}</>;
  const main = data.blocks.filter((b) => b.column !== 'aside');
  const auth = main.findIndex((b) => b.kind === 'heading' && b.id === 'authentication');
  const next = main.findIndex((b, i) => i > auth && b.kind === 'heading' && b.level === 2);
  const split = auth >= 0 && next >= 0 ? next : main.length;
  return (
    <div className={styles.operation}>
      <div className={styles.operationIntro}>{render(main.slice(0, split))}</div>
      <div className={styles.operationAside} data-testid="api-aside">
        <div className={styles.operationAsideInner}>{render(aside)}</div>
      </div>
      <div className={styles.operationMain}>{render(main.slice(split))}</div>
    </div>
  );
}
