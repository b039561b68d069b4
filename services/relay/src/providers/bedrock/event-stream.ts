import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { EventFramer, StreamEvent } from '../types.js';

/** Larger messages are not Bedrock's: the stream is broken (or hostile). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * AWS's binary event stream (application/vnd.amazon.eventstream) as the relay's events. Each
 * message is length-prefixed; the codec checks both CRCs and reads the headers. Events become
 * `{event: <:event-type>, data: <payload>}`; InvokeModel's `chunk` events carry the model's own
 * event as base64 `bytes`, which is unwrapped (Anthropic's events then look as they do over SSE,
 * named by their `type`). An exception message becomes an `error` event in Anthropic's shape,
 * which every Bedrock converter reads.
 */
export class EventStreamFramer implements EventFramer {
  private readonly codec = new EventStreamCodec(toUtf8, fromUtf8);
  private buffer: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): StreamEvent[] {
    this.buffer = this.buffer.length === 0 ? chunk : concat(this.buffer, chunk);
    const events: StreamEvent[] = [];
    while (this.buffer.length >= 4) {
      const length = new DataView(this.buffer.buffer, this.buffer.byteOffset, 4).getUint32(0, false);
      if (length < 16 || length > MAX_MESSAGE_BYTES) {
        this.buffer = new Uint8Array(0);
        events.push(errorEvent('BrokenStream', `an event-stream message claims ${length} bytes`));
        break;
      }
      if (this.buffer.length < length) break;
      const message = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      let decoded;
      try {
        decoded = this.codec.decode(message);
      } catch (error) {
        events.push(errorEvent('BrokenStream', (error as Error).message));
        continue;
      }
      events.push(toEvent(decoded.headers, toUtf8(decoded.body)));
    }
    return events;
  }

  end(): StreamEvent[] {
    // A truncated last message is dropped: the stream is cut, and the pipeline says so.
    this.buffer = new Uint8Array(0);
    return [];
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}

const headerText = (headers: Record<string, { type: string; value: unknown }>, name: string) => {
  const header = headers[name];
  return header && header.type === 'string' ? String(header.value) : '';
};

function toEvent(headers: Record<string, { type: string; value: unknown }>, payload: string): StreamEvent {
  const messageType = headerText(headers, ':message-type');
  if (messageType === 'exception' || messageType === 'error') {
    const name = headerText(headers, ':exception-type') || headerText(headers, ':error-code') || 'BedrockError';
    let message = headerText(headers, ':error-message');
    try {
      const parsed = JSON.parse(payload) as { message?: unknown; Message?: unknown };
      const text = parsed.message ?? parsed.Message;
      if (typeof text === 'string') message = text;
    } catch {
      // not JSON: the header's message, if any
    }
    return errorEvent(name, message || name);
  }
  const eventType = headerText(headers, ':event-type');
  if (eventType === 'chunk') {
    try {
      const bytes = (JSON.parse(payload) as { bytes?: unknown }).bytes;
      if (typeof bytes === 'string') {
        const inner = Buffer.from(bytes, 'base64').toString('utf8');
        const type = (JSON.parse(inner) as { type?: unknown }).type;
        return { event: typeof type === 'string' ? type : 'chunk', data: inner };
      }
    } catch {
      // handed on as it is: the converter reports what it cannot read
    }
  }
  return { event: eventType, data: payload };
}

function errorEvent(type: string, message: string): StreamEvent {
  return { event: 'error', data: JSON.stringify({ type: 'error', error: { type, message } }) };
}
