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

/** Ctrl+I (⌘I on a Mac) opens the assistant from anywhere on the page, as Ctrl+K opens the search. */
export const isAssistantShortcut = (e: KeyboardEvent): boolean => (e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'i';

/**
 * The "Ask AI" button, in the navbar beside the search box at every width (an icon below 1400 px), so a keyboard
 * reaches it in a few Tab presses and it never floats over the page (a floating button covered the pager's "Next"
 * card of the API pages, and a phone page's bottom-right controls); Ctrl/⌘+I opens it too. The chat panel is
 * rendered into <body> through a portal once opened. Only the button is part of every page.
 */
export default function AssistantLauncher(): React.ReactElement {
  const open = useAssistantOpen();
  const [mounted, setMounted] = useState(false);
  const [Panel, setPanel] = useState<ComponentType>();
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const [isMac, setIsMac] = useState(false);
  useEffect(() => {
    setMounted(true);
    setIsMac(/Mac|iPhone|iPad/.test(navigator.platform));
    const onKey = (e: KeyboardEvent) => {
      if (!isAssistantShortcut(e)) return;
      e.preventDefault();
      openAssistant();
      setAttempt((n) => n + 1);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
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
  const shortcut = isMac ? '⌘I' : 'Ctrl+I';
  return (
    <>
      <button
        type="button"
        className={styles.launcher}
        onClick={launch}
        onPointerEnter={prefetchPanel}
        onFocus={prefetchPanel}
        aria-label="Ask AI, the docs assistant"
        aria-keyshortcuts="Control+I Meta+I"
        aria-busy={busy}
        title={`Ask AI (${shortcut})`}
      >
        {ICON}
        <span className={styles.label}>Ask AI</span>
      </button>
      {mounted &&
        createPortal(
          <>
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
