/** The assistant's wire protocol (see packages/docs-server/README.md): Server-Sent Events over a POST. */
export interface Citation {
  n: number;
  url: string;
  title: string;
  heading: string;
}

export type ChatEvent =
  | { type: 'meta'; id: string; mode: 'llm' | 'extractive' | 'not-found'; contact?: boolean }
  | { type: 'delta'; text: string }
  | { type: 'citations'; citations: Citation[] }
  | { type: 'done'; id: string }
  | { type: 'error'; message: string };

export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** A readable message for a failed request: the server's `error`, or what a status means. */
async function failure(res: Response): Promise<string> {
  if (res.status === 429) {
    const wait = Number(res.headers.get('retry-after'));
    return `Too many questions in a short time. Try again${Number.isFinite(wait) && wait > 0 ? ` in ${Math.ceil(wait)} s` : ' in a minute'}.`;
  }
  if (res.status === 404 || res.status === 405) return 'The assistant is not available on this site.';
  try {
    const body = (await res.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string' && res.status < 500) return body.error;
  } catch {
    // not JSON
  }
  return `The assistant could not answer (HTTP ${res.status}).`;
}

/** Sends a question and calls `onEvent` for every event of the streamed answer. */
export async function streamChat(
  endpoint: string,
  question: string,
  history: HistoryMessage[],
  onEvent: (event: ChatEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ question, history }),
    signal,
  });
  if (!res.ok || !res.body) throw new Error(await failure(res));
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let type = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) type = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (!data) continue;
      try {
        onEvent({ type, ...(JSON.parse(data) as object) } as ChatEvent);
      } catch {
        // ignore a malformed event
      }
    }
  }
}

export async function sendFeedback(endpoint: string, id: string, rating: 'up' | 'down'): Promise<void> {
  const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, rating }) });
  if (!res.ok) throw new Error(await failure(res));
}
