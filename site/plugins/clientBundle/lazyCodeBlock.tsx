import React, { Suspense, type ComponentType, type ReactNode } from 'react';
import type { Props } from '@theme/CodeBlock';
import { afterLoad, nextInteraction } from './afterLoad';

/**
 * `@theme/CodeBlock` in the browser bundle (the server build keeps the theme's component, so every page's HTML — and
 * the Markdown copy made from it — has its highlighted code, title and language as before). Prism and the theme's
 * code block are a chunk of their own (./highlightedCodeBlock.tsx) loaded after the page's load event (./afterLoad.ts).
 *
 * Until then the block stays as the server rendered it: a component that suspends while Preact hydrates keeps its
 * server DOM on screen (preact/compat's Suspense shows no fallback during hydration) and hydrates that same DOM when
 * the chunk arrives. The theme's code block renders one element, which is what Preact keeps. The copy and word-wrap
 * buttons, which the theme renders only in the browser, appear then. A block rendered later in the browser (a page
 * opened by a link, an assistant answer) shows its plain text until the highlighter is there.
 */
let Highlighted: ComponentType<Props> | undefined;
let loading: Promise<void> | undefined;

function loadHighlighter(): Promise<void> {
  loading ??= afterLoad()
    .then(() => import('./highlightedCodeBlock'))
    .then(
      (m) => {
        Highlighted = m.default;
      },
      // The server-rendered code stays readable; try again at the visitor's next interaction.
      () =>
        nextInteraction().then(() => {
          loading = undefined;
        }),
    );
  return loading;
}

function HighlightedOrSuspend(props: Props): ReactNode {
  if (Highlighted) return <Highlighted {...props} />;
  throw loadHighlighter();
}

/**
 * The code as plain text, for a block first rendered in the browser before Prism is loaded: its lines laid out as the
 * theme lays them out (a `token-line` each, ended by `<br>`, no newline characters), so the block keeps its text and
 * its height when the highlighted one replaces it (an assistant answer that is still streaming grows, never shrinks).
 * No theme component here: the theme's code-block frame would bring its metadata helpers back into a doc page's first
 * load (2.0 KiB gzip, measured).
 */
function PlainCode({ children, className }: Props): ReactNode {
  const parts = React.Children.toArray(children);
  const text = parts.every((c) => typeof c === 'string') ? parts.join('') : undefined;
  return (
    <pre tabIndex={0} className={`${className ?? ''} theme-code-block thin-scrollbar`.trim()}>
      <code>
        {text === undefined
          ? children
          : text
              .replace(/\n$/, '')
              .split('\n')
              .map((line, i) => (
                <div key={i} className="token-line">
                  {line}
                  <br />
                </div>
              ))}
      </code>
    </pre>
  );
}

export default function CodeBlock(props: Props): ReactNode {
  return (
    <Suspense fallback={<PlainCode {...props} />}>
      <HighlightedOrSuspend {...props} />
    </Suspense>
  );
}
