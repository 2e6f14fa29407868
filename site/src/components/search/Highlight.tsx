import React from 'react';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text with every occurrence of the matched terms wrapped in <mark> (React escapes the rest). */
export default function Highlight({ text, terms }: { text: string; terms: string[] }): React.ReactElement {
  const words = terms.filter((t) => t.length > 1);
  if (!words.length) return <>{text}</>;
  const pattern = new RegExp(`(${words.map(escape).join('|')})`, 'gi');
  return <>{text.split(pattern).map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part))}</>;
}
