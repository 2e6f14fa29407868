import React, { type ReactNode } from 'react';
import Content from '@theme-original/DocItem/Content';
import type ContentType from '@theme/DocItem/Content';
import type { WrapperProps } from '@docusaurus/types';
import { useLocation } from '@docusaurus/router';
import BrowserOnly from '@docusaurus/BrowserOnly';
import SessionBar from '@site/src/components/login/SessionBar';
import { isGatedPath } from '@site/src/components/login/storage';

type Props = WrapperProps<typeof ContentType>;

/** Gated pages get the session bar (signed-in person, Sign out) above their content. */
export default function ContentWrapper(props: Props): ReactNode {
  const { pathname } = useLocation();
  return (
    <>
      {isGatedPath(pathname) && <BrowserOnly>{() => <SessionBar />}</BrowserOnly>}
      <Content {...props} />
    </>
  );
}
