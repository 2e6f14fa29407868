import { describe, expect, it } from 'vitest';
import { correctQuery } from '../src/components/search/spelling';
import { followReader, WRITTEN_URLS } from '../src/components/runtimeConfig';

describe('search spelling (did you mean)', () => {
  const vocabulary = ['pass', 'passkey', 'past', 'password', 'token', 'webhook', 'party'];
  const index = { vocabulary, queryTerms: (text: string) => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [] };
  const usage = (word: string) => ({ pass: 40, past: 30, party: 5, passkey: 12 })[word] ?? 1;

  it('replaces a word the docs never use by the closest word they do, preferring one with every typed letter in order', () => {
    // "pass", "past" and "party" are as close as "passkey" (two edits) and more used; only "passkey" keeps every letter typed.
    expect(correctQuery('pasky', index, usage)).toBe('passkey');
    expect(correctQuery('register a pasky', index, usage)).toBe('register a passkey');
  });

  it('leaves known words, short words and numbers alone, and answers nothing when nothing is close', () => {
    expect(correctQuery('token', index, usage)).toBeUndefined();
    expect(correctQuery('tokn webhok', index, usage)).toBe('token webhook');
    expect(correctQuery('abc 2024', index, usage)).toBeUndefined();
    expect(correctQuery('kubernetes', index, usage)).toBeUndefined();
  });
});

describe('samples follow the reader', () => {
  const sample = "curl 'http://localhost:8787/persons'\nnpm config set @keyway:registry http://localhost:3000/npm/ --location project\nopen http://localhost:3000/docs";

  it('shows the written sample unchanged until the URLs are known, and for the default ones', () => {
    expect(followReader(sample, WRITTEN_URLS)).toBe(sample);
  });

  it("puts the configured API URL and the docs origin's registry in place of the written ones, and nothing else", () => {
    expect(followReader(sample, { api: 'https://api.example.test', docs: 'http://127.0.0.1:4100' })).toBe(
      "curl 'https://api.example.test/persons'\nnpm config set @keyway:registry http://127.0.0.1:4100/npm/ --location project\nopen http://localhost:3000/docs",
    );
  });
});
