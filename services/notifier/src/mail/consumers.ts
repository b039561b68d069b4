import { z } from 'zod';
import type { EventPayload } from '@aigw/contracts';
import { onEvent, requestTyped, type BusEvent, type Subscription } from '@aigw/platform';
import { queueMail, type MailRuntime } from './deliveries.js';
import { checkParams, formatQuota, formatTime } from './templates.js';
import { notifyUser, noticeRoute, type NoticeDispatch } from '../notices/index.js';

/** The durable consumer name: notifier replicas share the events. */
const CONSUMER = 'notifier-mail';
/** Identity or the database may be away a while: keep redelivering (3 s apart, about a minute). */
const deliveryPolicy = { maxDeliver: 20, retryDelayMs: 3_000 };
/** A user is warned about a low balance at most this often, across replicas. */
export const LOW_BALANCE_EVERY_MS = 2 * 60 * 60_000;

const recipientSchema = z.email().max(254);

/**
 * What makes mail: services' mail requests (identity's codes and reset links), billing's balance
 * drops (a warning to the user) and channels' automatic disables (an alert to every root). The
 * last two are users' own notices: they go by each user's chosen method, within the notification
 * limit (notices/dispatch.ts). Each handler only records and queues, so SMTP or an endpoint in
 * trouble never holds the bus up.
 */
export function subscribeMail(dispatch: NoticeDispatch): Promise<Subscription[]> {
  const runtime = dispatch.mail;
  const { bus, logger } = runtime.context;
  const options = { durable: CONSUMER, logger, ...deliveryPolicy };
  return Promise.all([
    onEvent(bus, 'notifier.mail.requested', (payload, event) => mailRequested(runtime, payload, event), options),
    onEvent(bus, 'billing.balance.dropped', (payload, event) => balanceDropped(dispatch, payload, event), options),
    onEvent(bus, 'channels.channel.disabled', (payload, event) => channelDisabled(dispatch, payload, event), options),
  ]);
}

async function mailRequested(runtime: MailRuntime, request: EventPayload<'notifier.mail.requested'>, event: BusEvent): Promise<void> {
  const { logger } = runtime.context;
  const checked = checkParams(request.template, request.params);
  // Redelivery cannot fix a malformed request: it is logged and dropped.
  if (!checked.ok) {
    logger.error({ eventId: event.id, template: request.template, issues: checked.message }, 'mail request dropped: bad parameters');
    return;
  }
  if (!recipientSchema.safeParse(request.to).success) {
    logger.error({ eventId: event.id, template: request.template }, 'mail request dropped: bad recipient');
    return;
  }
  await queueMail(runtime, { cause: event.id, to: request.to, template: request.template, locale: request.locale, params: checked.params });
}

async function balanceDropped(dispatch: NoticeDispatch, drop: EventPayload<'billing.balance.dropped'>, event: BusEvent): Promise<void> {
  const { bus, kv, logger, options } = dispatch.mail.context;
  const [contact] = (await requestTyped(bus, 'identity.user.contacts', { user_ids: [drop.user_id], roots: false })).contacts;
  const route = contact ? noticeRoute(contact) : null;
  if (!contact || !route) {
    logger.debug({ userId: drop.user_id }, 'low balance: the user has no address or method to warn by');
    return;
  }
  // The first drop to claim the user's window owns it; that same drop delivered again goes on
  // (its first handling may have died before queueing), any other is skipped.
  const windowKey = `notifier:low-balance:${drop.user_id}`;
  if (!(await kv.setIfAbsent(windowKey, event.id, { ttlMs: LOW_BALANCE_EVERY_MS })) && (await kv.get(windowKey)) !== event.id) {
    logger.debug({ userId: drop.user_id }, 'low balance: already warned within 2 hours');
    return;
  }
  const display = { inCurrency: options.get('DisplayInCurrencyEnabled'), quotaPerUnit: options.get('QuotaPerUnit') };
  await notifyUser(dispatch, contact, route, {
    cause: event.id,
    template: 'low_balance',
    params: {
      username: contact.display_name || contact.username,
      quota: formatQuota(drop.quota, display),
      threshold: formatQuota(drop.threshold, display),
      link: `${options.get('ServerAddress')}/topup`,
      system_name: options.get('SystemName'),
    },
  });
}

async function channelDisabled(dispatch: NoticeDispatch, alert: EventPayload<'channels.channel.disabled'>, event: BusEvent): Promise<void> {
  const { bus, logger, options } = dispatch.mail.context;
  const roots = (await requestTyped(bus, 'identity.user.contacts', { user_ids: [], roots: true })).contacts.flatMap((contact) => {
    const route = noticeRoute(contact);
    return route ? [{ contact, route }] : [];
  });
  if (roots.length === 0) logger.warn({ channelId: alert.channel_id }, 'channel disabled, but no root has an address or method to alert');
  for (const { contact, route } of roots) {
    await notifyUser(dispatch, contact, route, {
      cause: event.id,
      template: 'channel_disabled',
      params: { name: alert.name, id: String(alert.channel_id), reason: alert.reason, time: formatTime(alert.time), system_name: options.get('SystemName') },
    });
  }
}
