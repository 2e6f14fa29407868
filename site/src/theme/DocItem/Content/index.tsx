import React, { type ReactNode } from 'react';
import Content from '@theme-original/DocItem/Content';
import type ContentType from '@theme/DocItem/Content';
import type { WrapperProps } from '@docusaurus/types';
import { useLocation } from '@docusaurus/router';
import BrowserOnly from '@docusaurus/BrowserOnly';
import SessionBar from '@site/src/components/login/SessionBar';
import { isGatedPath } from '@site/src/components/login/storage';
import CopyPage from '@site/src/components/copyPage';
import DeferHydration from '@site/src/components/DeferHydration';

type Props = WrapperProps<typeof ContentType>;

/**
 * Gated pages get the session bar (signed-in person, Sign out) above their content; every page the copy-page menu beside
 * its title. The content (one element) is hydrated in a task of its own (see DeferHydration).
 */
export default function ContentWrapper(props: Props): ReactNode {
  const { pathname } = useLocation();
  return (
    <>
      {isGatedPath(pathname) && <BrowserOnly>{() => <SessionBar />}</BrowserOnly>}
      <CopyPage pathname={pathname} />
      <DeferHydration>
        <Content {...props} />
      </DeferHydration>
    </>
  );
}
