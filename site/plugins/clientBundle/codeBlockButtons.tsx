// The copy and word-wrap buttons of a code block whose highlighted DOM came from the server (./lazyCodeBlock.tsx):
// the theme's own buttons, given the context the theme's code block would give them, without Prism. A chunk of its
// own, loaded after the page's load event.
import React, { type MutableRefObject, type ReactNode } from 'react';
import { useThemeConfig } from '@docusaurus/theme-common';
import { CodeBlockContextProvider, createCodeBlockMetadata, useCodeWordWrap } from '@docusaurus/theme-common/internal';
import Buttons from '@theme/CodeBlock/Buttons';
import type { Props } from '@theme/CodeBlock';

export default function CodeBlockButtons({ props, pre }: { props: Props & { children: string }; pre: HTMLPreElement }): ReactNode {
  const { prism } = useThemeConfig();
  const metadata = createCodeBlockMetadata({
    code: props.children,
    className: props.className,
    metastring: props.metastring,
    magicComments: prism.magicComments,
    defaultLanguage: prism.defaultLanguage,
    language: props.language,
    title: props.title,
    showLineNumbers: props.showLineNumbers,
  });
  const wordWrap = useCodeWordWrap();
  // The theme passes this ref to its <pre>; here the <pre> is the server's. Set before the hook's effects read it.
  (wordWrap.codeBlockRef as MutableRefObject<HTMLPreElement | null>).current = pre;
  return (
    <CodeBlockContextProvider metadata={metadata} wordWrap={wordWrap}>
      <Buttons />
    </CodeBlockContextProvider>
  );
}
