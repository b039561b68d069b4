import type { EventFramer, StreamEvent } from '../types.js';
import { DEFAULT_MAX_SSE_LINE_LENGTH, SseLineTooLongError, SseParser } from '../../sse/sse-parser.js';

/**
 * A stream answer that is server-sent events, or, when the upstream refuses the call with status
 * 200 (Baidu, Tencent: a bad token or signature, a limit), its JSON error object instead of a
 * stream. The relay's SSE parser would see nothing in the latter and the client an empty answer:
 * this framer tells the two apart by the first non-blank byte and passes such a body on as one
 * event when it ends, so the provider's converter reports the error.
 */
export class SseOrBodyFramer implements EventFramer {
  private readonly sse = new SseParser();
  private mode: 'unknown' | 'events' | 'body' = 'unknown';
  private readonly held: Uint8Array[] = [];
  private body = '';
  private readonly decoder = new TextDecoder('utf-8');

  push(chunk: Uint8Array): StreamEvent[] {
    if (this.mode !== 'unknown') return this.take(chunk);
    const first = chunk.find((byte) => byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d);
    if (first === undefined) {
      this.held.push(chunk);
      return [];
    }
    this.mode = first === 0x7b ? 'body' : 'events';
    return [...this.held.splice(0), chunk].flatMap((piece) => this.take(piece));
  }

  end(): StreamEvent[] {
    if (this.mode !== 'body') return this.sse.end();
    this.body += this.decoder.decode();
    return [{ data: this.body }];
  }

  private take(chunk: Uint8Array): StreamEvent[] {
    if (this.mode === 'events') return this.sse.push(chunk);
    this.body += this.decoder.decode(chunk, { stream: true });
    if (this.body.length > DEFAULT_MAX_SSE_LINE_LENGTH) throw new SseLineTooLongError(DEFAULT_MAX_SSE_LINE_LENGTH);
    return [];
  }
}
