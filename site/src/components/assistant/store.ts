import { useSyncExternalStore } from 'react';
import config from './config.json';
import { sendFeedback, streamChat, type Citation, type HistoryMessage } from './api';

export interface Message {
  role: 'user' | 'assistant';
  content: string;
  /** Assistant messages: the server's answer id (for feedback), sources, state. */
  id?: string;
  citations?: Citation[];
  status?: 'streaming' | 'done' | 'error' | 'stopped';
  /** The docs cannot answer this (commercial, off-topic, nothing relevant): show the contact-us call to action. */
  contact?: boolean;
  error?: string;
  feedback?: 'up' | 'down';
  feedbackError?: string;
}

interface State {
  messages: Message[];
  busy: boolean;
}

const STORAGE_KEY = 'keyway-assistant';
let state: State = { messages: [], busy: false };
let restored = false;
let controller: AbortController | undefined;
const listeners = new Set<() => void>();

function restore() {
  if (restored || typeof window === 'undefined') return;
  restored = true;
  try {
    const saved = JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Message[] | null;
    if (Array.isArray(saved)) state = { ...state, messages: saved.filter((m) => m.status !== 'streaming') };
  } catch {
    // no or unreadable saved conversation
  }
}

function set(patch: Partial<State>) {
  state = { ...state, ...patch };
  if (patch.messages && !state.busy) {
    try {
      window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(state.messages.slice(-20)));
    } catch {
      // storage full or disabled: the conversation lasts until the tab closes
    }
  }
  for (const l of listeners) l();
}

const updateLast = (patch: (m: Message) => Partial<Message>) => {
  const messages = state.messages.slice();
  const last = messages[messages.length - 1];
  if (last) messages[messages.length - 1] = { ...last, ...patch(last) };
  set({ messages });
};

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

const EMPTY: State = { messages: [], busy: false };

/** The conversation, shared by every mounted piece of the assistant and kept across page navigations. */
export function useAssistant(): State {
  return useSyncExternalStore(
    subscribe,
    () => {
      restore();
      return state;
    },
    () => EMPTY,
  );
}

/** Stops the answer being streamed: what arrived so far stays, marked as stopped. */
export function stopAnswer(): void {
  if (!state.busy || !controller) return;
  controller.abort();
  updateLast(() => ({ status: 'stopped' }));
  state = { ...state, busy: false };
  set({ messages: state.messages });
}

export function clearConversation(): void {
  controller?.abort();
  set({ busy: false });
  set({ messages: [] });
}

/** Asks a question with the conversation so far as context, streaming the answer into the last message. */
export async function ask(question: string): Promise<void> {
  restore();
  const q = question.trim();
  if (!q || state.busy) return;
  const history: HistoryMessage[] = state.messages
    .filter((m) => m.status !== 'error' && m.content)
    .slice(-10)
    .map(({ role, content }) => ({ role, content }));
  set({ busy: true, messages: [...state.messages, { role: 'user', content: q }, { role: 'assistant', content: '', status: 'streaming' }] });
  controller = new AbortController();
  try {
    await streamChat(
      config.chatEndpoint,
      q,
      history,
      (event) => {
        if (event.type === 'meta') updateLast(() => ({ id: event.id, contact: event.contact === true }));
        else if (event.type === 'delta') updateLast((m) => ({ content: m.content + event.text }));
        else if (event.type === 'citations') updateLast(() => ({ citations: event.citations }));
        else if (event.type === 'error') updateLast(() => ({ status: 'error', error: event.message }));
      },
      controller.signal,
    );
    if (controller.signal.aborted) return;
    updateLast((m) => ({ status: m.status === 'error' ? 'error' : 'done' }));
  } catch (e) {
    if (controller.signal.aborted) return;
    updateLast(() => ({ status: 'error', error: e instanceof Error ? e.message : String(e) }));
  } finally {
    state = { ...state, busy: false };
    set({ messages: state.messages });
  }
}

export async function rate(index: number, rating: 'up' | 'down'): Promise<void> {
  const message = state.messages[index];
  if (!message?.id) return;
  const update = (patch: Partial<Message>) => set({ messages: state.messages.map((m, i) => (i === index ? { ...m, ...patch } : m)) });
  update({ feedback: rating, feedbackError: undefined });
  try {
    await sendFeedback(config.feedbackEndpoint, message.id, rating);
  } catch (e) {
    update({ feedback: undefined, feedbackError: e instanceof Error ? e.message : String(e) });
  }
}
