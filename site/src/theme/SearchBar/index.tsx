import React, { useCallback, useEffect, useRef, useState, type ComponentType } from 'react';
import AssistantLauncher from '@site/src/components/assistant/AssistantLauncher';
import type { SearchDialogProps } from '@site/src/components/search/SearchDialog';
import styles from './styles.module.css';

let dialog: Promise<ComponentType<SearchDialogProps>> | undefined;
/** The dialog, the search engine and the index load on first use (hover or focus of the button prefetch the code). */
const loadDialog = (): Promise<ComponentType<SearchDialogProps>> => {
  dialog ??= import('@site/src/components/search/SearchDialog').then((m) => m.default);
  dialog.catch(() => {
    dialog = undefined;
  });
  return dialog;
};
const prefetch = () => void loadDialog().catch(() => undefined);

/**
 * The navbar search: a light button on every page (same markup on the server and in the browser); the dialog loads
 * when the visitor opens it (click, Ctrl/Cmd+K). What is typed while it loads is kept.
 */
export default function SearchBar(): React.ReactElement {
  const [open, setOpen] = useState(false);
  const [Dialog, setDialog] = useState<ComponentType<SearchDialogProps>>();
  const [failed, setFailed] = useState('');
  const [isMac, setIsMac] = useState(false);
  useEffect(() => setIsMac(/Mac|iPhone|iPad/.test(navigator.platform)), []);

  const typed = useRef('');
  // From the Ctrl+K or click that opens the dialog until the dialog takes the keys (or fails to load), keys are kept
  // here. Set in the same task as the Ctrl+K: keys a busy browser delivers before it paints again are not lost.
  const keeping = useRef(false);
  // The dialog is on screen (it took the keys and has not closed): another Ctrl+K keeps nothing.
  const shown = useRef(false);

  const openDialog = useCallback(() => {
    if (shown.current) return;
    typed.current = '';
    keeping.current = true;
    setFailed('');
    setOpen(true);
    loadDialog().then(
      (component) => setDialog(() => component),
      (e: unknown) => {
        keeping.current = false;
        setFailed(`The search could not be loaded: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        openDialog();
        return;
      }
      if (!keeping.current) return;
      if (e.key === 'Escape') {
        keeping.current = false;
        setOpen(false);
      } else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) typed.current += e.key;
      else if (e.key === 'Backspace') typed.current = typed.current.slice(0, -1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [openDialog]);

  const takeTyped = useCallback(() => {
    keeping.current = false;
    shown.current = true;
    const text = typed.current;
    typed.current = '';
    return text;
  }, []);
  const close = useCallback(() => {
    shown.current = false;
    setOpen(false);
  }, []);

  const waiting = open && !Dialog && !failed;

  return (
    <>
      <button
        type="button"
        className={styles.trigger}
        onClick={openDialog}
        onPointerEnter={prefetch}
        onFocus={prefetch}
        aria-label="Search the docs"
        aria-keyshortcuts="Control+K Meta+K"
        aria-busy={waiting}
      >
        <svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true">
          <path d="M14.4 12.9a7 7 0 1 0-1.5 1.5l4.4 4.4 1.5-1.5-4.4-4.4ZM8.5 13.5a5 5 0 1 1 0-10 5 5 0 0 1 0 10Z" fill="currentColor" />
        </svg>
        <span className={styles.triggerLabel}>Search</span>
        {/* The shortcut is announced by aria-keyshortcuts and drawn by CSS (styles.kbd::after), so the button's visible
            text is its label, "Search", which its name contains (WCAG 2.5.3, label in name). */}
        <kbd className={styles.kbd} aria-hidden="true" data-keys={`${isMac ? '⌘' : 'Ctrl'} K`} />
      </button>
      <AssistantLauncher />
      {open && Dialog && <Dialog takeTyped={takeTyped} onClose={close} />}
      {open && failed && (
        <span role="alert" className={styles.failed}>
          {failed}
        </span>
      )}
    </>
  );
}
