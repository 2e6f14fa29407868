import { useSyncExternalStore } from 'react';

// Whether the assistant panel is open: the only part of the assistant every page needs. The conversation, the
// panel and its Markdown renderer load on first use (./store, ./AssistantPanel).

let open = false;
const listeners = new Set<() => void>();

const set = (value: boolean) => {
  open = value;
  for (const l of listeners) l();
};

const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export function useAssistantOpen(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => open,
    () => false,
  );
}

/** Loads the conversation store (and with it the chat client) once. */
export const loadStore = (): Promise<typeof import('./store')> => import('./store');

/** Opens the panel; with a question, asks it at once. */
export function openAssistant(question?: string): void {
  set(true);
  if (question?.trim()) void loadStore().then((store) => store.ask(question));
}

export function closeAssistant(): void {
  set(false);
}
