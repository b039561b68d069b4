import { z } from 'zod';
import type { MailSettings } from './mail/index.js';
import type { WebhookSettings } from './webhooks/index.js';

/**
 * The notifier's env fields beyond the base ones: its own process reads them, and so does the
 * gateway when it runs the notifier all-in-one (one declaration, the same names and bounds).
 */
export const notifierConfigShape = {
  /** Secret the key encrypting webhook signing secrets is derived from; every notifier replica needs the same. */
  NOTIFIER_KEY_SECRET: z.string().min(32, 'NOTIFIER_KEY_SECRET must be at least 32 characters'),
  /** Time one webhook call may take (connect, answer headers and body). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Calls per webhook delivery, the first included, before it is marked failed. */
  WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(6),
  /** Wait before a webhook delivery's first retry; doubles on every further one. */
  WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** Sends per mail, the first included, before it is marked failed and root is told. */
  MAIL_ATTEMPTS: z.coerce.number().int().min(1).max(30).default(12),
  /** Wait before a mail's first retry (SMTP down or refusing); doubles on every further one. */
  MAIL_BACKOFF_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
};

type NotifierConfig = z.infer<z.ZodObject<typeof notifierConfigShape>>;

/** The plugin options those fields set. */
export function notifierSettings(config: NotifierConfig): { keySecret: string; webhooks: Partial<WebhookSettings>; mail: Partial<MailSettings> } {
  return {
    keySecret: config.NOTIFIER_KEY_SECRET,
    webhooks: { timeoutMs: config.WEBHOOK_TIMEOUT_MS, attempts: config.WEBHOOK_ATTEMPTS, backoffMs: config.WEBHOOK_BACKOFF_MS },
    mail: { attempts: config.MAIL_ATTEMPTS, backoffMs: config.MAIL_BACKOFF_MS },
  };
}
