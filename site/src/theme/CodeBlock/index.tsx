import React, { Suspense, lazy, type ReactElement } from 'react';
import type { Props } from '@theme/CodeBlock';

// Code blocks (Prism with its grammars, the copy and wrap buttons, line numbers) are a chunk of their own that only
// pages with a code block fetch: MDX pages reach @theme/CodeBlock through the MDX components, so a static import
// would put all of it into every doc page's JavaScript. The build renders the highlighted block (it waits for every
// lazy component) and the browser keeps that HTML until the chunk has arrived, then hydrates it.
const Highlighted = lazy(() => import('./Highlighted'));

export default function CodeBlock(props: Props): ReactElement {
  // Rendered only in the browser when a block first appears after the page loaded (the assistant's answers): the
  // code as plain text until it is highlighted.
  const fallback = (
    <pre className="prism-code">
      <code>{props.children}</code>
    </pre>
  );
  return (
    <Suspense fallback={fallback}>
      <Highlighted {...props} />
    </Suspense>
  );
}
