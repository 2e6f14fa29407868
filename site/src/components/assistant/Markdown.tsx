import React from 'react';
import Link from '@docusaurus/Link';
import CodeBlock from '@theme/CodeBlock';
import type { Citation } from './api';
import { parseBlocks, safeHref } from './markdown-parse';
import styles from './styles.module.css';
import { useCopy } from '../useCopy';

export { safeHref };

/**
 * A deliberately small Markdown renderer for answers: paragraphs, headings, lists, quotes, fenced code, inline
 * code, bold, italic, links and citation markers ([1]). It builds React elements only — raw HTML in the text is
 * shown as text, never parsed — and links are kept only for http(s) URLs and site paths.
 */

const INLINE = /(`[^`]+`)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|(?<![\w])_([^_\s][^_]*)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|\[(\d{1,2})\]/g;

function Inline({ text, citations }: { text: string; citations: Citation[] }): React.ReactElement {
  const out: React.ReactNode[] = [];
  let last = 0;
  let key = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    last = at + m[0].length;
    const k = key++;
    if (m[1]) out.push(<code key={k}>{m[1].slice(1, -1)}</code>);
    else if (m[2] ?? m[3]) out.push(<strong key={k}><Inline text={(m[2] ?? m[3]) as string} citations={citations} /></strong>);
    else if (m[4] ?? m[5]) out.push(<em key={k}><Inline text={(m[4] ?? m[5]) as string} citations={citations} /></em>);
    else if (m[6] && m[7]) {
      const href = safeHref(m[7]);
      if (!href) out.push(m[6]);
      else if (href.startsWith('/')) out.push(<Link key={k} to={href}>{m[6]}</Link>);
      else out.push(<a key={k} href={href} target="_blank" rel="noopener noreferrer nofollow">{m[6]}</a>);
    } else if (m[8]) {
      const c = citations.find((x) => x.n === Number(m[8]));
      out.push(
        c ? (
          <sup key={k}>
            <Link to={c.url} title={c.heading ? `${c.title} › ${c.heading}` : c.title} data-citation={c.n}>
              [{c.n}]
            </Link>
          </sup>
        ) : (
          m[0]
        ),
      );
    }
  }
  if (last < text.length) out.push(text.slice(last));
  return <>{out}</>;
}

/**
 * A code block of an answer with a "Copy code" button always in view (the theme's own copy button shows only while the
 * pointer is over the block, which a keyboard or touch reader never sees).
 */
function AnswerCode({ text, lang }: { text: string; lang: string }): React.ReactElement {
  const { copied, copy } = useCopy();
  return (
    <div className={styles.answerCode}>
      <button type="button" className={styles.answerCopy} onClick={() => void copy(text)} aria-label={copied ? 'Code copied' : 'Copy code'}>
        {copied ? 'Copied' : 'Copy code'}
      </button>
      <CodeBlock language={lang || undefined}>{text}</CodeBlock>
    </div>
  );
}

export default function Markdown({ source, citations = [] }: { source: string; citations?: Citation[] }): React.ReactElement {
  return (
    <>
      {parseBlocks(source).map((b, i) => {
        switch (b.kind) {
          case 'code':
            return <AnswerCode key={i} text={b.text} lang={b.lang} />;
          case 'heading':
            return <p key={i}><strong><Inline text={b.text} citations={citations} /></strong></p>;
          case 'list': {
            const items = b.items.map((item, j) => <li key={j}><Inline text={item} citations={citations} /></li>);
            return b.ordered ? <ol key={i}>{items}</ol> : <ul key={i}>{items}</ul>;
          }
          case 'quote':
            return <blockquote key={i}><Inline text={b.text} citations={citations} /></blockquote>;
          default:
            return <p key={i}><Inline text={b.text} citations={citations} /></p>;
        }
      })}
    </>
  );
}
