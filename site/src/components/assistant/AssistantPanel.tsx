import React, { useEffect, useRef, useState } from 'react';
import Link from '@docusaurus/Link';
import config from './config.json';
import Markdown, { safeHref } from './Markdown';
import { closeAssistant } from './open';
import { ask, clearConversation, rate, stopAnswer, useAssistant, type Message } from './store';
import styles from './styles.module.css';
import { useFocusTrap } from '../useFocusTrap';
import { useCopy } from '../useCopy';
import { followReader, useReaderUrls, type ReaderUrls } from '../runtimeConfig';

function Sources({ message }: { message: Message }) {
  const citations = (message.citations ?? []).filter((c) => safeHref(c.url)?.startsWith('/'));
  if (!citations.length) return null;
  return (
    <div className={styles.sources}>
      <span className={styles.sourcesLabel}>Sources</span>
      <ol aria-label="Sources">
        {citations.map((c) => (
          <li key={c.n} value={c.n}>
            <Link to={c.url} onClick={() => closeAssistant()}>
              {c.title}
              {c.heading && <span className={styles.sourceHeading}> › {c.heading}</span>}
            </Link>
          </li>
        ))}
      </ol>
    </div>
  );
}

function Thumb({ down = false }: { down?: boolean }) {
  return (
    <svg width="14" height="14" viewBox="0 0 24 24" aria-hidden="true" style={down ? { transform: 'rotate(180deg)' } : undefined}>
      <path fill="currentColor" d="M2 21h4V9H2v12Zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6c-.4.4-.6.9-.6 1.4v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2Z" />
    </svg>
  );
}

function AnswerActions({ message, index, urls }: { message: Message; index: number; urls: ReaderUrls }) {
  const { copied, copy: copyText } = useCopy();
  if (message.status !== 'done' || !message.id) return null;
  const copy = () => copyText(followReader(message.content, urls));
  return (
    <div className={styles.actions}>
      <button type="button" onClick={copy} className={styles.action}>
        {copied ? 'Copied' : 'Copy answer'}
      </button>
      <button type="button" aria-pressed={message.feedback === 'up'} aria-label="Helpful" title="Helpful" className={styles.action} onClick={() => void rate(index, 'up')}>
        <Thumb />
      </button>
      <button type="button" aria-pressed={message.feedback === 'down'} aria-label="Not helpful" title="Not helpful" className={styles.action} onClick={() => void rate(index, 'down')}>
        <Thumb down />
      </button>
      <span role="status" className={styles.feedbackStatus}>
        {message.feedback && 'Thanks for the feedback.'}
        {message.feedbackError}
      </span>
    </div>
  );
}

/** The chat panel: quick questions, the conversation with streamed and cited answers, the contact call to action. */
export default function AssistantPanel(): React.ReactElement {
  const { messages, busy } = useAssistant();
  const [draft, setDraft] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  const log = useRef<HTMLDivElement>(null);
  const panel = useRef<HTMLElement>(null);
  // Answers quote samples written for the API of `npm start`: shown for the API this docs server is configured with.
  const urls = useReaderUrls();
  // A modal dialog: Tab and Shift+Tab stay in the panel; on close the focus goes back to what opened it.
  useFocusTrap(panel);

  useEffect(() => input.current?.focus(), []);
  // Escape closes the panel wherever the focus is (a click may have put it on the page behind).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented) closeAssistant();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight });
  }, [messages]);

  const submit = (q: string) => {
    if (!q.trim() || busy) return;
    setDraft('');
    void ask(q);
  };

  return (
    <section ref={panel} role="dialog" aria-modal="true" aria-label={config.title} className={styles.panel}>
      <header className={styles.header}>
        <strong>{config.title}</strong>
        <span className={styles.headerActions}>
          {messages.length > 0 && (
            <button type="button" className={styles.action} onClick={clearConversation}>
              Clear conversation
            </button>
          )}
          <button type="button" className={styles.action} aria-label="Close the assistant" onClick={closeAssistant}>
            ✕
          </button>
        </span>
      </header>
      <div className={styles.log} ref={log} aria-live="polite">
        {messages.length === 0 && (
          <div className={styles.welcome}>
            <p>Ask anything about Keyway. Answers come from the docs, with links to the sections they use.</p>
            <ul className={styles.quick} aria-label="Quick questions">
              {config.quickQuestions.map((q) => (
                <li key={q}>
                  <button type="button" className={styles.quickButton} onClick={() => submit(q)}>
                    {q}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
        {messages.map((m, i) =>
          m.role === 'user' ? (
            <div key={i} className={styles.question}>
              {m.content}
            </div>
          ) : (
            <article key={i} className={styles.answer} aria-busy={m.status === 'streaming'} data-status={m.status}>
              {m.content ? <Markdown source={followReader(m.content, urls)} citations={m.citations} /> : m.status === 'streaming' && <p className={styles.thinking}>Searching the docs…</p>}
              {m.status === 'error' && <p className={styles.error}>{m.error}</p>}
              {m.status === 'stopped' && <p className={styles.thinking}>Stopped.</p>}
              {m.contact && m.status !== 'streaming' && (
                <a href={config.contact.url} target="_blank" rel="noopener noreferrer" className={`button button--primary button--sm ${styles.contactCta}`}>
                  {config.contact.label}
                </a>
              )}
              <Sources message={m} />
              <AnswerActions message={m} index={i} urls={urls} />
            </article>
          ),
        )}
      </div>
      <form
        className={styles.form}
        onSubmit={(e) => {
          e.preventDefault();
          submit(draft);
        }}
      >
        <textarea
          ref={input}
          className={styles.textarea}
          rows={2}
          maxLength={500}
          value={draft}
          placeholder={messages.length ? 'Ask a follow-up question' : 'Ask a question about Keyway'}
          aria-label="Your question"
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              submit(draft);
            }
          }}
        />
        {busy ? (
          <button type="button" className="button button--secondary" onClick={stopAnswer}>
            Stop
          </button>
        ) : (
          <button type="submit" className="button button--primary" disabled={!draft.trim()}>
            Ask
          </button>
        )}
      </form>
      <footer className={styles.footer}>
        <span>Answers are generated from the docs and may be incomplete.</span>
        <a href={config.contact.url} target="_blank" rel="noopener noreferrer" className={styles.contact}>
          {config.contact.label}
        </a>
      </footer>
    </section>
  );
}
