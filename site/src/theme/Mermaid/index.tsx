import React, { Suspense, lazy, type ReactElement } from 'react';

// Every MDX page references @theme/Mermaid through the MDX components, so theme-mermaid's component imported here
// statically would be part of every page's JavaScript. Loaded lazily, it (and the mermaid library it imports) is a
// chunk of its own that only pages with a diagram fetch. On the server and until it arrives, a placeholder of the
// diagram's usual height keeps the text below it from jumping.
const MermaidDiagram = lazy(() => import('@theme-original/Mermaid'));

export default function Mermaid(props: { value: string }): ReactElement {
  return (
    <Suspense fallback={<div className="keyway-diagram-placeholder" role="img" aria-label="Diagram (loading)" />}>
      <MermaidDiagram {...props} />
    </Suspense>
  );
}
