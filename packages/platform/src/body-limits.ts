import { Readable } from 'node:stream';
import { msg, type Access } from '@aigw/contracts';
import { AppError } from './errors.js';

/**
 * Request body caps by route class (docs/architecture.md section 6.6, test D1), enforced before a
 * body is read: a declared Content-Length over the cap is refused at once, a chunked body as soon
 * as it passes it. A route may declare its own `bodyLimit` (the relay's by operation, payment
 * callbacks); otherwise `useAccessControl` gives it the cap of its declared access.
 */
export const bodyLimits = {
  /** Routes anyone may call (login, registration, reset, callbacks): small forms. */
  anonymous: 64 * 1024,
  /** Routes of a signed-in console user (options, channels with many keys, token pages). */
  console: 1024 * 1024,
  /** Payment gateways' notifies, which the gateway forwards unauthenticated (billing's own route is tighter). */
  paymentCallback: 1024 * 1024,
} as const;

/** The cap of a console route by its declared access ('public' routes are anonymous). */
export function bodyLimitFor(access: Access): number {
  return access === 'public' ? bodyLimits.anonymous : bodyLimits.console;
}

/**
 * Whether a request announces a body (a length above 0, or chunked). A request answered before
 * its body is read should close the connection: Node would otherwise read the rest to reuse it.
 */
export function announcesBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** 413 in the caller's shape. The connection is closed after it: the rest of the body is never read. */
export class BodyTooLargeError extends AppError {
  constructor(message = msg('common.body_too_large')) {
    super(message, 'request_too_large', 413, false);
  }
}

/**
 * Reads `payload` into memory up to `limitBytes` and returns it as a new stream; throws
 * BodyTooLargeError as soon as the body passes the limit (the rest is left unread). For proxies
 * that must refuse an oversized body before forwarding a byte of it, whatever its framing.
 */
export async function readCapped(payload: NodeJS.ReadableStream, limitBytes: number): Promise<Readable> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of payload) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += buffer.length;
    if (received > limitBytes) throw new BodyTooLargeError();
    chunks.push(buffer);
  }
  return Readable.from(chunks.length > 0 ? [Buffer.concat(chunks)] : []);
}
