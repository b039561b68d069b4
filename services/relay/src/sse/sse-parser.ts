import type { StreamEvent } from '../providers/types.js';

/** Default cap on one SSE line (and on one event's joined data): 1 MiB of text. */
export const DEFAULT_MAX_SSE_LINE_LENGTH = 1024 * 1024;

/**
 * An upstream sent a line (or an event) longer than the cap. Thrown instead of buffering without
 * bound: a broken or hostile upstream must not grow the relay's memory (complaint 9,
 * docs/compatibility.md section 7).
 */
export class SseLineTooLongError extends Error {
  readonly code = 'sse_line_too_long';
  constructor(readonly limit: number) {
    super(`upstream sent a server-sent event line longer than ${limit} characters`);
    this.name = 'SseLineTooLongError';
  }
}

export interface SseParserOptions {
  /** Longest line, and longest joined `data` of one event, in characters of decoded text. */
  maxLineLength?: number;
}

/**
 * Incremental parser for `text/event-stream` (WHATWG HTML, "event stream interpretation"):
 * feed it chunks split anywhere (even inside a UTF-8 sequence or between CR and LF), get whole
 * events back as soon as their blank line arrives. Only the unfinished line and the current
 * event's data are kept, both capped. `id:` and `retry:` are ignored: the relay never reconnects.
 */
export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly maxLineLength: number;
  /** The unfinished last line of what was fed so far. */
  private partial = '';
  /** The previous chunk ended with CR, so a leading LF in the next one closes nothing. */
  private afterCarriageReturn = false;
  private dataLines: string[] = [];
  private dataLength = 0;
  private eventName: string | undefined;

  constructor(options: SseParserOptions = {}) {
    this.maxLineLength = options.maxLineLength ?? DEFAULT_MAX_SSE_LINE_LENGTH;
  }

  /** Feeds one chunk; returns the events it completed (often none or one). */
  push(chunk: Uint8Array | string): StreamEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    // An empty decode (half a UTF-8 sequence) must not forget a pending CR.
    if (text === '') return [];
    const events: StreamEvent[] = [];
    let start = 0;
    if (this.afterCarriageReturn && text.charCodeAt(0) === 10) start = 1;
    this.afterCarriageReturn = false;
    for (let index = start; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code !== 10 && code !== 13) continue;
      const piece = text.slice(start, index);
      const line = this.partial === '' ? piece : this.partial + piece;
      this.partial = '';
      this.takeLine(line, events);
      if (code === 13) {
        if (index + 1 === text.length) this.afterCarriageReturn = true;
        else if (text.charCodeAt(index + 1) === 10) index++;
      }
      start = index + 1;
    }
    if (start < text.length) {
      this.partial += text.slice(start);
      if (this.partial.length > this.maxLineLength) throw new SseLineTooLongError(this.maxLineLength);
    }
    return events;
  }

  /**
   * The stream ended. A last event without its closing blank line is still delivered: some
   * upstreams close right after the final `data:` line, and dropping it would lose the usage.
   */
  end(): StreamEvent[] {
    const events: StreamEvent[] = [];
    const rest = this.partial + this.decoder.decode();
    this.partial = '';
    if (rest !== '') this.takeLine(rest, events);
    this.dispatch(events);
    return events;
  }

  private takeLine(line: string, events: StreamEvent[]): void {
    if (line.length > this.maxLineLength) throw new SseLineTooLongError(this.maxLineLength);
    if (line === '') {
      this.dispatch(events);
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' starts a comment (keep-alive pings)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') {
      this.dataLength += value.length + 1;
      if (this.dataLength > this.maxLineLength) throw new SseLineTooLongError(this.maxLineLength);
      this.dataLines.push(value);
    } else if (field === 'event') {
      this.eventName = value;
    }
  }

  private dispatch(events: StreamEvent[]): void {
    // The event-stream standard dispatches nothing for an event without data (an `event:` line alone).
    if (this.dataLines.length > 0) {
      const data = this.dataLines.length === 1 ? this.dataLines[0]! : this.dataLines.join('\n');
      events.push(this.eventName === undefined ? { data } : { event: this.eventName, data });
    }
    this.dataLines = [];
    this.dataLength = 0;
    this.eventName = undefined;
  }
}

/** An upstream event passed on as it came: its name, when it had one, and its data. */
export function formatSseEvent(event: { event?: string; data: string }): string {
  return event.event === undefined ? formatSse(event.data) : `event: ${event.event}\n${formatSse(event.data)}`;
}

/** One `data:` event for the client; multi-line data becomes several `data:` lines, as the format requires. */
export function formatSse(data: string): string {
  if (!data.includes('\n')) return `data: ${data}\n\n`;
  return `${data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}
