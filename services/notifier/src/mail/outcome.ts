import { replyTyped, type Subscription } from '@aigw/platform';
import type { ResponsePayload } from '@aigw/contracts';
import type { NotifierContext } from '../context.js';
import { DeliveryEntity } from '../entities/index.js';
import { causeKey } from './deliveries.js';

/** How often the delivery row is read while a caller waits: a first SMTP attempt takes tens of milliseconds at best. */
const POLL_MS = 100;

type MailOutcome = ResponsePayload<'notifier.mail.outcome'>;

/**
 * Answers `notifier.mail.outcome`: how the first attempt of a requested mail went, read from its
 * delivery row (any replica may have sent it), waiting at most what the caller allows. A mail
 * server that refuses (down, wrong password, the address refused) is known within that wait,
 * so the user who asked for it hears so at once rather than waiting for a mail that never comes.
 */
export function answerMailOutcome(context: NotifierContext): Promise<Subscription> {
  return replyTyped(context.bus, 'notifier.mail.outcome', async ({ cause, wait_ms }) => {
    const deliveries = context.db.getRepository(DeliveryEntity);
    const deadline = Date.now() + wait_ms;
    for (;;) {
      const row = await deliveries.findOne({ where: { kind: 'mail', dedupe_key: causeKey(cause) }, order: { id: 'ASC' } });
      const outcome = row ? outcomeOf(row) : null;
      if (outcome) return outcome;
      if (Date.now() + POLL_MS > deadline) return { status: 'pending', error: '' };
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  });
}

/** Null while no attempt has finished. */
function outcomeOf(row: DeliveryEntity): MailOutcome | null {
  if (row.status === 'sent') return { status: 'sent', error: '' };
  if (row.status === 'failed' || row.attempts > 0) return { status: 'failed', error: row.last_error };
  return null;
}
