/**
 * Stands in, in the browser bundle, for theme-common's `lib/hooks/useHideableNavbar` (see ./index.ts): the theme's own
 * hook, with the navbar's height measured after the first frame instead of while the page hydrates.
 *
 * The theme's hook measures the navbar (`getBoundingClientRect`) as soon as its element is attached, which in the
 * first hydration forces the browser to lay out the whole page in the middle of the pass: 30–40 ms of main thread on a
 * long guide in a CPU profile (issue #19). The height is only read when the reader scrolls (is the page above the
 * navbar's height?); after the first frame the layout is done and the measurement costs nothing. A scroll in the few
 * milliseconds before it reads a height of 0, which only means the navbar is not forced visible for that one event.
 */
import { useCallback } from 'react';
import { useHideableNavbar as useThemeHideableNavbar } from '@keyway-original/theme-common-useHideableNavbar';

export function useHideableNavbar(hideOnScroll: boolean): ReturnType<typeof useThemeHideableNavbar> {
  const { navbarRef, isNavbarVisible } = useThemeHideableNavbar(hideOnScroll);
  const measureLater = useCallback(
    (node: HTMLElement | null) => {
      if (node === null) return;
      // After the next frame's layout (rendering comes before the task the timeout queues).
      requestAnimationFrame(() => setTimeout(() => node.isConnected && navbarRef(node)));
    },
    [navbarRef],
  );
  return { navbarRef: measureLater, isNavbarVisible } as const;
}
