import type { SearchDoc } from './extract.js';

/**
 * The synonym layer, built from the docs themselves so that a reader's words find the page that uses the other ones:
 *
 * - every abbreviation the docs define, written as "Spelled Out Words (ABBR)" where the capital initials of the
 *   words give the abbreviation (“Open Policy Agent (OPA)”, “Multi-Factor Authentication (MFA)”);
 * - the front-matter `keywords` of the pages, whose comma-separated entries name the same thing in several ways
 *   (`keywords: [PII, personal data, …]`): entries that are single words or abbreviations pair with the others.
 *
 * Each passage that mentions one form gets the other forms in its `keywords` field (indexed, never shown), so the
 * expansion happens once at index time and the browser's index carries it: no table is shipped or consulted per query.
 */
export interface SynonymTable {
  /** Lower-case form → the other forms of the same thing. */
  forms: Map<string, Set<string>>;
}

const DEFINITION = /((?:[A-Z][\w-]*\s+){1,5}?(?:[A-Z][\w-]*))\s+\(([A-Z][A-Za-z0-9]{1,6})\)/g;

const initials = (phrase: string) =>
  phrase
    .split(/[\s-]+/)
    .filter(Boolean)
    .map((w) => w[0])
    .join('')
    .toUpperCase();

function pair(table: SynonymTable, a: string, b: string) {
  const x = a.toLowerCase().trim();
  const y = b.toLowerCase().trim();
  if (!x || !y || x === y) return;
  for (const [from, to] of [
    [x, y],
    [y, x],
  ] as const) {
    let set = table.forms.get(from);
    if (!set) table.forms.set(from, (set = new Set()));
    set.add(to);
  }
}

/** The abbreviations defined in the docs and the groups of front-matter keywords. */
export function buildSynonyms(docs: readonly SearchDoc[]): SynonymTable {
  const table: SynonymTable = { forms: new Map() };
  for (const doc of docs) {
    for (const m of `${doc.heading} ${doc.text}`.matchAll(DEFINITION)) {
      const [, phrase = '', abbr = ''] = m;
      // The shortest tail of the phrase whose initials spell the abbreviation ("Use Open Policy Agent" → "Open Policy Agent").
      const words = phrase.split(/\s+/);
      for (let i = 0; i < words.length; i++) {
        const tail = words.slice(i).join(' ');
        if (initials(tail) === abbr.replace(/[^A-Za-z]/g, '').toUpperCase()) {
          pair(table, abbr, tail);
          break;
        }
      }
    }
    if (doc.keywords) {
      const entries = doc.keywords.split(',').map((k) => k.trim()).filter(Boolean);
      for (let i = 0; i < entries.length; i++) for (let j = i + 1; j < entries.length; j++) pair(table, entries[i] as string, entries[j] as string);
    }
  }
  return table;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The passages with their synonyms added: each passage that mentions a form of the table (as whole words) gets the
 * other forms in `keywords`. Forms already in the passage are not repeated.
 */
export function withSynonyms<T extends SearchDoc>(docs: readonly T[], table: SynonymTable = buildSynonyms(docs)): T[] {
  if (!table.forms.size) return [...docs];
  // One alternation of every form, longest first, matched once per passage.
  const forms = [...table.forms.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${forms.map(escape).join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
  return docs.map((doc) => {
    const haystack = `${doc.title} ${doc.heading} ${doc.text}`;
    const lower = haystack.toLowerCase();
    const added = new Set<string>();
    for (const m of haystack.matchAll(pattern)) {
      for (const other of table.forms.get(m[0].toLowerCase()) ?? []) if (!lower.includes(other)) added.add(other);
    }
    if (!added.size) return doc;
    const keywords = [doc.keywords, ...added].filter(Boolean).join(', ');
    return { ...doc, keywords };
  });
}
