import React, { type ReactNode } from 'react';
import CodeBlock from '@theme-original/CodeBlock';
import type { Props } from '@theme/CodeBlock';
import { followReader, useReaderUrls } from '@site/src/components/runtimeConfig';

/**
 * The theme's code block, its sample written for the API of `npm start` shown for the API this docs server is
 * configured with once the browser knows it. The server build and a React bundle (`KEYWAY_PREACT=0`) use this; the
 * default Preact bundle replaces `@theme/CodeBlock` with plugins/clientBundle/lazyCodeBlock.tsx, which does the same.
 */
export default function FollowingCodeBlock(props: Props): ReactNode {
  const urls = useReaderUrls();
  const parts = React.Children.toArray(props.children);
  const code = parts.every((c) => typeof c === 'string') ? parts.join('') : undefined;
  return <CodeBlock {...props}>{code === undefined ? props.children : followReader(code, urls)}</CodeBlock>;
}
