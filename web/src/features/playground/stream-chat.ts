/** A chat message of the playground. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The states of a reply (docs/product.md section 10). */
export type ReplyState = 'loading' | 'incomplete' | 'complete' | 'error';

export interface PlaygroundRequest {
  messages: ChatMessage[];
  model: string;
  group: string;
  temperature: number;
  /** 0 leaves it to the model. */
  maxTokens: number;
}

export interface StreamHandlers {
  /** More text of the reply. */
  onDelta(text: string): void;
  /** The stream ended normally: a done marker, an empty choices list, or the end of the body. */
  onDone(): void;
  /** The request or the stream failed; `detail` is what the server said. */
  onError(detail: string, status?: number): void;
}

export class ChatParseError extends Error {}

/**
 * Splits SSE text into complete `data:` payloads; returns them and the unfinished rest, which
 * the caller prepends to the next chunk.
 */
export function splitSseEvents(buffer: string): { payloads: string[]; rest: string } {
  const normalized = buffer.replace(/\r\n/g, '\n');
  const events = normalized.split('\n\n');
  const rest = events.pop() ?? '';
  const payloads = events.flatMap((event) => {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    return data.length ? [data.join('\n')] : [];
  });
  return { payloads, rest };
}

/** What one payload means: text to append, the end, or (for a malformed chunk) a parse error. */
export function readPayload(payload: string): { done: true } | { done: false; text: string } {
  if (payload.trim() === '[DONE]') return { done: true };
  let chunk: { choices?: Array<{ delta?: { content?: string | null; reasoning_content?: string | null } }>; error?: { message?: string } };
  try {
    chunk = JSON.parse(payload) as typeof chunk;
  } catch {
    throw new ChatParseError(payload);
  }
  if (chunk.error) throw new Error(chunk.error.message ?? JSON.stringify(chunk.error));
  if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return { done: true };
  return { done: false, text: chunk.choices.map((choice) => choice.delta?.content ?? '').join('') };
}

function errorText(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string }; message?: string };
    return parsed.error?.message ?? parsed.message ?? body;
  } catch {
    return body || `HTTP ${status}`;
  }
}

/**
 * Sends the conversation to the playground route as a stream and reports the reply piece by
 * piece. The session cookie authenticates; the user id header is the console's CSRF guard.
 */
export async function streamChat(request: PlaygroundRequest, userId: number, handlers: StreamHandlers, signal: AbortSignal): Promise<void> {
  const body: Record<string, unknown> = {
    messages: request.messages,
    stream: true,
    model: request.model,
    group: request.group,
    temperature: request.temperature,
  };
  if (request.maxTokens > 0) body.max_tokens = request.maxTokens;
  let response: Response;
  try {
    response = await fetch(`${window.location.origin}/pg/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'New-Api-User': String(userId), 'Cache-Control': 'no-store' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      signal,
    });
  } catch (error) {
    if (!signal.aborted) handlers.onError(error instanceof Error ? error.message : String(error));
    return;
  }
  if (!response.ok || !response.body) {
    handlers.onError(errorText(response.status, await response.text()), response.status);
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const { payloads, rest } = splitSseEvents(buffer + value);
      buffer = rest;
      for (const payload of payloads) {
        const result = readPayload(payload);
        if (result.done) {
          await reader.cancel();
          handlers.onDone();
          return;
        }
        if (result.text) handlers.onDelta(result.text);
      }
    }
    handlers.onDone();
  } catch (error) {
    if (signal.aborted) return;
    if (error instanceof ChatParseError) handlers.onError('parse');
    else handlers.onError(error instanceof Error ? error.message : String(error));
  }
}
