import { z } from 'zod';
import { NotifyType, type Locale, type NotificationSettings } from '@aigw/contracts';
import { DeliveryEntity } from '../entities/index.js';
import { causeKey, queueMail, type MailRuntime } from '../mail/deliveries.js';
import { renderMail, type MailParams, type MailTemplate } from '../mail/templates.js';
import { noticeCause, queueNotice, type NoticeRuntime } from './delivery.js';
import { buildNotice, noticeTarget, type StoredNotice } from './methods.js';

/**
 * A user's own notices (low balance; root's channel alerts) go by the method the user chose in
 * `PUT /api/user/setting`: mail (the account's address, or `notification_email`), their webhook,
 * Bark, Gotify or WxPusher. Each user gets at most `NotifyLimitCount` notices of one kind per
 * `NotificationLimitDurationMinute` (the established product's 2 per 10 minutes), counted in the
 * shared Kv so the limit holds across replicas.
 */

/** What the notifier knows of a user (from `identity.user.contacts`). */
export interface NoticeContact {
  user_id: number;
  email: string;
  locale: Locale;
  notification: NotificationSettings;
}

/** Where one notice goes: a mail, or a call of the user's method (built once the text is known). */
export type NoticeRoute = { via: 'mail'; to: string } | { via: 'notice'; settings: NotificationSettings };

const recipientSchema = z.email().max(254);

export interface NoticeDispatch {
  mail: MailRuntime;
  notices: NoticeRuntime;
}

/** Where the user's notices go, or null when their method lacks what it needs (no address, URL or binding). */
export function noticeRoute(contact: NoticeContact): NoticeRoute | null {
  const settings = contact.notification;
  if (settings.notify_type === NotifyType.Email) {
    const to = settings.notification_email || contact.email;
    return recipientSchema.safeParse(to).success ? { via: 'mail', to } : null;
  }
  return buildNotice(settings, { kind: '', title: '', content: '' }, '') ? { via: 'notice', settings } : null;
}

/** Over the limit: the kind's count in the user's window passed NotifyLimitCount. Counted only for a new notice. */
async function overLimit(runtime: NoticeRuntime, userId: number, kind: string): Promise<boolean> {
  const { kv, options, logger } = runtime.context;
  const limit = options.get('NotifyLimitCount');
  const windowMs = options.get('NotificationLimitDurationMinute') * 60_000;
  const count = await kv.increment(`notifier:notify-limit:${userId}:${kind}`, { ttlMs: windowMs });
  if (count <= limit) return false;
  logger.info({ userId, kind, limit }, 'notice dropped: the user reached the notification limit');
  return true;
}

/**
 * Sends one notice of `template` to the user by their route, unless the limit says no. A repeated
 * order (a redelivered event) finds its delivery row, is not counted again, and is queued again
 * only while pending.
 */
export async function notifyUser<T extends MailTemplate>(
  dispatch: NoticeDispatch,
  contact: NoticeContact,
  route: NoticeRoute,
  order: { cause: string; template: T; params: MailParams<T> },
): Promise<void> {
  const { notices } = dispatch;
  const deliveries = notices.context.db.getRepository(DeliveryEntity);
  if (route.via === 'mail') {
    const known = await deliveries.existsBy({ kind: 'mail', dedupe_key: causeKey(order.cause), target: route.to });
    if (!known && (await overLimit(notices, contact.user_id, order.template))) return;
    await queueMail(dispatch.mail, { cause: order.cause, to: route.to, template: order.template, locale: contact.locale, params: order.params });
    return;
  }
  const { subject, text } = renderMail(order.template, contact.locale, order.params);
  const notice: StoredNotice | null = buildNotice(route.settings, { kind: order.template, title: subject, content: text }, order.cause);
  if (!notice) return;
  const cause = noticeCause(causeKey(order.cause), noticeTarget(notice));
  if (!(await deliveries.existsBy(cause)) && (await overLimit(notices, contact.user_id, order.template))) return;
  await queueNotice(notices, cause, order.template, notice);
}
