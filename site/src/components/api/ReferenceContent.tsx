import React, { type MouseEvent, type ReactNode } from 'react';
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
import type { ReferenceBlock, ReferencePageData } from './types';

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

function Block({ block, onClick, deprecated }: { block: ReferenceBlock; onClick: (event: MouseEvent<HTMLElement>) => void; deprecated?: boolean }): ReactNode {
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
      return (
        <Tabs groupId="api-language">
          {block.samples.map((s) => (
            <TabItem key={s.value} value={s.value} label={s.label}>
              <CodeBlock language={s.language}>{s.code}</CodeBlock>
            </TabItem>
          ))}
        </Tabs>
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
 * description, parameters, bodies and responses, and beside them (sticky) the request samples and the example response;
 * on narrow screens the second column follows the first.
 */
export default function ReferenceContent({ data }: { data: ReferencePageData }): ReactNode {
  const followLink = useRouterLinks();
  const render = (blocks: ReferenceBlock[]) => blocks.map((block, i) => <Block key={i} block={block} onClick={followLink} deprecated={data.deprecated} />);
  const aside = data.blocks.filter((b) => b.column === 'aside');
  if (data.kind !== 'operation' || !aside.length) return <>{render(data.blocks)}</>;
  return (
    <div className={styles.operation}>
      <div className={styles.operationMain}>{render(data.blocks.filter((b) => b.column !== 'aside'))}</div>
      <div className={styles.operationAside} data-testid="api-aside">
        <div className={styles.operationAsideInner}>{render(aside)}</div>
      </div>
    </div>
  );
}
