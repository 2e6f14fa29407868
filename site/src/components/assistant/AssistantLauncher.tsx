import React, { useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import AssistantPanel from './AssistantPanel';
import { openAssistant, useAssistant } from './store';
import styles from './styles.module.css';

/**
 * The floating "Ask AI" button and the chat panel, rendered into <body> through a portal (mounted from the search
 * box, so every page with a navbar has it).
 */
export default function AssistantLauncher(): React.ReactElement | null {
  const { open } = useAssistant();
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  if (!mounted) return null;
  return createPortal(
    <>
      {!open && (
        <button type="button" className={styles.fab} onClick={() => openAssistant()} aria-label="Ask AI, the docs assistant">
          <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true">
            <path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2Zm3 6.5a1.5 1.5 0 1 0 0 .01Zm5 0a1.5 1.5 0 1 0 0 .01Zm5 0a1.5 1.5 0 1 0 0 .01Z" />
          </svg>
          <span>Ask AI</span>
        </button>
      )}
      {open && <AssistantPanel />}
    </>,
    document.body,
  );
}
