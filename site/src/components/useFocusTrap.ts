import { useEffect, useState, type RefObject } from 'react';
import { createFocusTrap } from 'focus-trap';

/**
 * Keeps the keyboard focus inside a dialog while it is mounted (Tab and Shift+Tab cycle through its controls, focus
 * that lands outside is brought back), and gives it back to what had it before once the dialog goes (`focus-trap`).
 * The dialog focuses its own first field and handles Escape itself; clicks outside it are let through (the dialog
 * decides whether they close it).
 */
export function useFocusTrap(container: RefObject<HTMLElement | null>): void {
  // What had the focus when the dialog opened (read while it first renders, before it moves the focus into itself).
  const [opener] = useState(() => (typeof document === 'undefined' ? null : (document.activeElement as HTMLElement | null)));
  useEffect(() => {
    const element = container.current;
    if (!element) return undefined;
    const trap = createFocusTrap(element, {
      escapeDeactivates: false,
      allowOutsideClick: true,
      initialFocus: false,
      fallbackFocus: element,
      returnFocusOnDeactivate: true,
      setReturnFocus: (previous) => (opener?.isConnected && opener !== document.body ? opener : previous),
      tabbableOptions: { displayCheck: 'none' },
    });
    trap.activate();
    return () => {
      trap.deactivate();
    };
  }, [container, opener]);
}
