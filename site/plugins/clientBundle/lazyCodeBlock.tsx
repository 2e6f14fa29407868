import React, { Suspense, useEffect, useRef, useState, type ComponentType, type CSSProperties, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import type { Props } from '@theme/CodeBlock';
import { afterLoad, nextInteraction } from './afterLoad';
import { followReader, followRendered, useReaderUrls, WRITTEN_URLS, type ReaderUrls } from '../../src/components/runtimeConfig';

/**
 * `@theme/CodeBlock` in the browser bundle (the server build keeps the theme's component, so every page's HTML — and
 * the Markdown copy made from it — has its highlighted code, title and language as before).
 *
 * A block the server rendered never needs Prism in the browser: its highlighted DOM is already there and is final
 * (the site has one colour mode, so the theme's re-render after hydration for the visitor's Prism theme has nothing
 * to change; a dark mode would have to revisit this). While the page hydrates, each block takes its server element
 * (see `takeServerBlock`) and renders it back as that element's own markup, which Preact hydrates without touching
 * it; after the page's load event (./afterLoad.ts) a small chunk with the theme's copy and word-wrap buttons
 * (./codeBlockButtons.tsx) puts them where the theme puts them. Highlighting and re-rendering every block after load
 * was the largest task of a code-heavy page (Lighthouse mobile, the m2m guide).
 *
 * A block rendered later in the browser (a page opened by a link, an assistant answer) needs Prism: the theme's code
 * block and Prism are a chunk of their own (./highlightedCodeBlock.tsx), loaded after the page's load event; until
 * it is there the block shows its plain text (a component that suspends shows its fallback).
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

/**
 * The server's code blocks not yet taken by a hydrating component, in document order: read when the bundle starts,
 * before anything is hydrated (the scripts are deferred, so the whole document is parsed by then).
 */
const serverBlocks: HTMLElement[] = typeof document === 'undefined' ? [] : Array.from(document.querySelectorAll<HTMLElement>('.theme-code-block'));

const flat = (text: string) => text.replace(/\s+/g, '');

/**
 * The server element of a block being hydrated: blocks hydrate in document order (a region whose hydration waits,
 * ./deferHydration.tsx, keeps that order), so it is the first one not taken that is still in the document and shows
 * this code (its displayed lines, magic comments removed, are part of it); undefined for a block rendered in the
 * browser, which then takes the Prism path.
 */
function takeServerBlock(code: string): HTMLElement | undefined {
  const want = flat(code);
  const fits = (el: HTMLElement) =>
    el.isConnected && want.includes(flat(Array.from(el.querySelectorAll('.token-line')).map((l) => l.textContent).join('')));
  const at = serverBlocks.findIndex(fits);
  return at < 0 ? undefined : serverBlocks.splice(at, 1)[0];
}

type Buttons = ComponentType<{ props: Props & { children: string }; pre: HTMLPreElement }>;
let loadingButtons: Promise<Buttons> | undefined;

/** The server's block, hydrated as it is; the buttons come after load. */
function ServerCodeBlock({ server, props, urls }: { server: HTMLElement; props: Props & { children: string }; urls: ReaderUrls }): ReactNode {
  // The element's own attributes and markup, as the server wrote them: Preact hydrates them without a change (it
  // leaves an element's inner HTML alone while hydrating and, later, while the string is the same).
  const [own] = useState(() => ({ className: server.className, style: server.getAttribute('style') ?? undefined, html: server.innerHTML }));
  const ref = useRef<HTMLDivElement>(null);
  const [buttons, setButtons] = useState<{ Buttons: Buttons; content: HTMLElement; pre: HTMLPreElement }>();
  useEffect(() => {
    let live = true;
    loadingButtons ??= afterLoad().then(() => import('./codeBlockButtons').then((m) => m.default));
    loadingButtons.then(
      (Buttons) => {
        const pre = ref.current?.querySelector('pre');
        if (live && pre?.parentElement) setButtons({ Buttons, content: pre.parentElement, pre });
      },
      () => {
        loadingButtons = undefined;
      },
    );
    return () => {
      live = false;
    };
  }, []);
  // Samples follow the reader: written for the API of `npm start`, shown for the one this docs server is configured
  // with. The server's highlighted text is rewritten in place (no Prism needed); the copy button copies the same.
  useEffect(() => {
    if (ref.current && urls !== WRITTEN_URLS) followRendered(ref.current, urls);
  }, [urls]);
  const followed = urls === WRITTEN_URLS ? props : { ...props, children: followReader(props.children, urls) };
  return (
    <>
      {/* preact/compat sets a string style as the attribute itself, which is what the server element has. */}
      <div ref={ref} className={own.className} style={own.style as unknown as CSSProperties} dangerouslySetInnerHTML={{ __html: own.html }} />
      {buttons && createPortal(<buttons.Buttons props={followed} pre={buttons.pre} />, buttons.content)}
    </>
  );
}

export default function CodeBlock(props: Props): ReactNode {
  const parts = React.Children.toArray(props.children);
  const code = parts.every((c) => typeof c === 'string') ? parts.join('') : undefined;
  const [server] = useState(() => (code === undefined ? undefined : takeServerBlock(code)));
  const urls = useReaderUrls();
  if (server && code !== undefined) return <ServerCodeBlock server={server} props={{ ...props, children: code }} urls={urls} />;
  const shown = code === undefined || urls === WRITTEN_URLS ? props : { ...props, children: followReader(code, urls) };
  return (
    <Suspense fallback={<PlainCode {...shown} />}>
      <HighlightedOrSuspend {...shown} />
    </Suspense>
  );
}
