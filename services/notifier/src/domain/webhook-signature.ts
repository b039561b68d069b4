import { createHmac, randomBytes } from 'node:crypto';
import { webhookHeaders } from '@aigw/contracts';

/**
 * The webhook signature scheme (webhooks/README.md, docs/events.md): `sha256=` + hex HMAC-SHA256
 * keyed with the endpoint's secret over `${timestamp}.${body}`, where timestamp is the
 * X-Webhook-Timestamp value (unix seconds) and body the exact bytes sent. Binding the timestamp
 * lets receivers refuse replays.
 */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** A server-generated signing secret: 32 random bytes, recognisable by its prefix. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** What one webhook call carries: the JSON body exactly as signed, and its headers. */
export interface WebhookMessage {
  /** The event id (the ping's own id for tests). */
  id: string;
  subject: string;
  /** `{"id","subject","time","data"}` as JSON text. */
  body: string;
}

/** The request headers of one attempt, signed now. */
export function signedHeaders(message: WebhookMessage, secret: string, nowMs = Date.now()): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'aigw-webhooks/1',
    [webhookHeaders.id]: message.id,
    [webhookHeaders.subject]: message.subject,
    [webhookHeaders.timestamp]: String(timestamp),
    [webhookHeaders.signature]: signWebhook(secret, timestamp, message.body),
  };
}

/** The body of a webhook call: the bus event as integrators see it on NATS. */
export function webhookBody(event: { id: string; subject: string; time: string; data: unknown }): string {
  return JSON.stringify({ id: event.id, subject: event.subject, time: event.time, data: event.data });
}
