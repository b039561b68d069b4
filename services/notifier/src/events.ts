import { webhookSubjects, type EventPayload } from '@aigw/contracts';
import { publishEvent, type Bus, type ServiceMessaging } from '@aigw/platform';

/**
 * What the notifier says on the bus. It publishes through the functions below (audit records
 * through platform's recordAudit, dead letters through its keepDeadLetters), consumes the mail requests and the alerts it mails
 * (mail/consumers.ts), forwards every event integrators may receive to their webhooks
 * (webhooks/delivery.ts: one durable consumer per domain), answers how a requested mail went
 * (mail/outcome.ts), and asks identity for the contacts to mail; the options come through
 * platform's options mirror.
 */
export const notifierMessaging = {
  publishes: ['notifier.delivery.failed', 'notifier.audit.recorded', 'notifier.dead_letter.recorded'],
  consumes: ['notifier.mail.requested', 'billing.balance.dropped', 'channels.channel.disabled', 'identity.option.updated'],
  forwards: webhookSubjects,
  answers: ['notifier.mail.outcome'],
  asks: ['identity.user.contacts', 'identity.option.snapshot'],
} as const satisfies ServiceMessaging;

/** Once per delivery given up (event id `delivery-failed-<delivery id>`). */
export async function publishDeliveryFailed(bus: Bus, failure: EventPayload<'notifier.delivery.failed'>): Promise<void> {
  await publishEvent(bus, 'notifier.delivery.failed', failure, `delivery-failed-${failure.delivery_id}`);
}
