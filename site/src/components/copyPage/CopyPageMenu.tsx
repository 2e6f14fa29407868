import React, { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { isGatedPath } from '@site/src/components/login/storage';
import styles from './menu.module.css';

/** Assistants that take a prompt in their URL; the prompt points them at the page's Markdown. */
const ASSISTANTS: { name: string; url: (prompt: string) => string }[] = [
  { name: 'ChatGPT', url: (q) => `https://chatgpt.com/?q=${encodeURIComponent(q)}` },
  { name: 'Claude', url: (q) => `https://claude.ai/new?q=${encodeURIComponent(q)}` },
  { name: 'Perplexity', url: (q) => `https://www.perplexity.ai/search?q=${encodeURIComponent(q)}` },
];

export const markdownPathOf = (pathname: string): string => `${pathname.replace(/\/+$/, '') || '/index'}.md`;

async function fetchMarkdown(path: string): Promise<Blob> {
  const res = await fetch(path, { headers: { accept: 'text/markdown' }, credentials: 'same-origin' });
  if (!res.ok) throw new Error(`${path} answered ${res.status}`);
  return new Blob([await res.text()], { type: 'text/plain' });
}

/** Writes the Markdown to the clipboard; the fetch runs inside the click's user activation (ClipboardItem with a promise). */
async function copyMarkdown(path: string): Promise<void> {
  if (typeof ClipboardItem !== 'undefined' && navigator.clipboard?.write) {
    await navigator.clipboard.write([new ClipboardItem({ 'text/plain': fetchMarkdown(path) })]);
    return;
  }
  await navigator.clipboard.writeText(await (await fetchMarkdown(path)).text());
}

export default function CopyPageMenu({ pathname, onClose }: { pathname: string; onClose: () => void }): ReactNode {
  const menu = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState('');
  const mdPath = markdownPathOf(pathname);
  const mdUrl = new URL(mdPath, window.location.origin).href;
  const prompt = `Read ${mdUrl} so I can ask questions about it.`;

  // A layout effect: focus and listeners are in place as soon as the menu is rendered (an effect runs after the next
  // paint, and an Escape pressed before it was lost).
  useLayoutEffect(() => {
    menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const outside = (e: PointerEvent) => {
      if (!menu.current?.parentElement?.contains(e.target as Node)) onClose();
    };
    const keys = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        onClose();
        (menu.current?.previousElementSibling as HTMLElement | null)?.focus();
      }
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        const items = Array.from(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
        const i = items.indexOf(document.activeElement as HTMLElement);
        items[(i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
        e.preventDefault();
      }
    };
    document.addEventListener('pointerdown', outside);
    document.addEventListener('keydown', keys);
    return () => {
      document.removeEventListener('pointerdown', outside);
      document.removeEventListener('keydown', keys);
    };
  }, [onClose]);

  const copy = () => {
    setStatus('Copying…');
    copyMarkdown(mdPath).then(
      () => setStatus('Copied as Markdown'),
      (error: unknown) => setStatus(`Could not copy: ${error instanceof Error ? error.message : String(error)}`),
    );
  };

  return (
    <div ref={menu} className={styles.menu} role="menu" aria-label="Page actions">
      <button type="button" role="menuitem" className={styles.item} onClick={copy}>
        Copy as Markdown
        <span className={styles.hint}>For your AI tools</span>
      </button>
      <a role="menuitem" className={styles.item} href={mdPath} target="_blank" rel="noopener">
        View as Markdown
        <span className={styles.hint}>Plain text of this page</span>
      </a>
      {!isGatedPath(pathname) &&
        ASSISTANTS.map((a) => (
          <a key={a.name} role="menuitem" className={styles.item} href={a.url(prompt)} target="_blank" rel="noopener noreferrer">
            Open in {a.name}
            <span className={styles.hint}>Ask about this page</span>
          </a>
        ))}
      <p className={styles.status} role="status" aria-live="polite">
        {status}
      </p>
    </div>
  );
}
