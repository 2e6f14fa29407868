import React, { useEffect, useState, type ComponentType } from 'react';
import { createPortal } from 'react-dom';
import { openAssistant, useAssistantOpen } from './open';
import styles from './launcher.module.css';

let panel: Promise<ComponentType> | undefined;
/** The chat panel's code (conversation, Markdown, feedback): loaded when the assistant is first opened or hovered. */
export const loadPanel = (): Promise<ComponentType> => {
  panel ??= import('./AssistantPanel').then((m) => m.default);
  panel.catch(() => {
    panel = undefined;
  });
  return panel;
};

const ICON = (
  <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true">
    <path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2Zm3 6.5a1.5 1.5 0 1 0 0 .01Zm5 0a1.5 1.5 0 1 0 0 .01Zm5 0a1.5 1.5 0 1 0 0 .01Z" />
  </svg>
);

/**
 * The "Ask AI" button and the chat panel (mounted from the search box, so every page with a navbar has them). From
 * 997 px up the button floats at the bottom right (rendered into <body> through a portal); below, it is an icon in the
 * navbar. Only the button is part of every page.
 */
export default function AssistantLauncher(): React.ReactElement {
  const open = useAssistantOpen();
  const [mounted, setMounted] = useState(false);
  const [Panel, setPanel] = useState<ComponentType>();
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => setMounted(true), []);
  useEffect(() => {
    if (!open || Panel) return;
    let live = true;
    setFailed(false);
    loadPanel().then(
      (component) => live && setPanel(() => component),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [open, Panel, attempt]);
  const launch = () => {
    openAssistant();
    setAttempt((n) => n + 1);
  };
  const prefetchPanel = () => void loadPanel().catch(() => undefined);
  const busy = open && !Panel && !failed;
  // Below the 996 px breakpoint the button sits in the navbar, beside the search button, instead of floating over the
  // page (where it covered the bottom-right controls of a phone-sized page, such as /login's passkey button); CSS
  // shows one of the two. The navbar one is the same markup on the server and in the browser.
  const button = {
    type: 'button',
    onClick: launch,
    onPointerEnter: prefetchPanel,
    onFocus: prefetchPanel,
    'aria-label': 'Ask AI, the docs assistant',
    'aria-busy': busy,
  } as const;
  const inline = (
    <button {...button} className={styles.inline}>
      {ICON}
    </button>
  );
  if (!mounted) return inline;
  return (
    <>
      {inline}
      {createPortal(
        <>
          {(!open || !Panel) && (
            <button {...button} className={styles.fab}>
              {ICON}
              <span>Ask AI</span>
            </button>
          )}
          {open && failed && (
            <p role="alert" className={styles.failed}>
              The assistant could not be loaded. Check your connection and try again.
            </p>
          )}
          {open && Panel && <Panel />}
        </>,
        document.body,
      )}
    </>
  );
}
