import { z } from 'zod';
import {
  defaultNotificationSettings,
  missingNotificationFields,
  msg,
  NotifyType,
  notificationSettingsSchema,
  updateUserSettingBodySchema,
  userSettingView,
  type NotificationSettings,
  type UserSettingView,
} from '@aigw/contracts';
import { EgressBlockedError, EgressError, NotFoundError, openSecret, sealSecret, UserError, type EgressClient } from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { UserEntity } from './entities/user.entity.js';

/**
 * Users' own notification settings (the established product's `/api/user/setting`): kept as JSON
 * on the user row with the two secrets sealed (`webhook_secret`, `gotify_token`), answered with
 * those left out, and handed whole to the notifier in `identity.user.contacts`.
 */

/** The stored JSON: the settings but the uid (its own column), the secrets sealed. */
const storedSchema = notificationSettingsSchema.omit({ wxpusher_uid: true }).partial();
type Stored = z.infer<typeof storedSchema>;

const SECRET_FIELDS = ['webhook_secret', 'gotify_token'] as const;

/** The user's settings, secrets opened; a row without any (or unreadable) reads as the defaults. */
export function readNotificationSettings(user: Pick<UserEntity, 'notification_settings' | 'wxpusher_uid'>, key: Buffer): NotificationSettings {
  let stored: Stored = {};
  if (user.notification_settings) {
    const parsed = storedSchema.safeParse(safeJson(user.notification_settings));
    if (parsed.success) stored = parsed.data;
  }
  const settings: NotificationSettings = { ...defaultNotificationSettings, ...stored, wxpusher_uid: user.wxpusher_uid };
  for (const field of SECRET_FIELDS) settings[field] = stored[field] ? openSecret(stored[field], key) : '';
  return settings;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The column's text for `settings` (the uid left out: it has its own column). */
export function sealNotificationSettings(settings: NotificationSettings, key: Buffer): string {
  const { wxpusher_uid: _uid, ...stored } = settings;
  for (const field of SECRET_FIELDS) stored[field] = settings[field] ? sealSecret(settings[field], key) : '';
  return JSON.stringify(stored);
}

async function findUser(context: IdentityContext, userId: number): Promise<UserEntity> {
  const user = await context.db.getRepository(UserEntity).findOneBy({ id: userId });
  if (!user || user.deleted_at !== null) throw new NotFoundError(msg('users.not_found'));
  return user;
}

export async function userSetting(context: IdentityContext, userId: number): Promise<UserSettingView> {
  return userSettingView(readNotificationSettings(await findUser(context, userId), context.notificationKey));
}

/**
 * Replaces the settings. A secret left out keeps the stored one; the chosen method's fields must
 * be there (a kept secret counts); every URL must pass the egress guard now (rule R1: a user's URL
 * never reaches a private network unless root allows private upstreams) and again on every send.
 */
export async function updateUserSetting(
  context: IdentityContext,
  egress: EgressClient,
  userId: number,
  body: z.output<typeof updateUserSettingBodySchema>,
): Promise<UserSettingView> {
  const user = await findUser(context, userId);
  const current = readNotificationSettings(user, context.notificationKey);
  const next: NotificationSettings = {
    ...current,
    ...body,
    webhook_secret: body.webhook_secret ?? current.webhook_secret,
    gotify_token: body.gotify_token ?? current.gotify_token,
  };
  // Each a catalogue message that names its field.
  const missing = Object.entries(missingNotificationFields(next));
  if (missing.length > 0) throw new UserError(missing.map(([, message]) => message).join('; '), 'invalid_request', 200, missing[0]?.[0]);
  const urlFields = { [NotifyType.Webhook]: 'webhook_url', [NotifyType.Bark]: 'bark_url', [NotifyType.Gotify]: 'gotify_url' } as const;
  for (const field of Object.values(urlFields)) {
    // Only URLs in use are called; the others are kept as typed.
    if (next[field] && urlFields[next.notify_type as keyof typeof urlFields] === field) await checkUserUrl(egress, field, next[field]);
  }
  await context.db.getRepository(UserEntity).update({ id: userId }, { notification_settings: sealNotificationSettings(next, context.notificationKey) });
  return userSettingView(next);
}

/** Refuses a URL the egress guard would refuse, naming the field. Bark's placeholders are judged as text. */
async function checkUserUrl(egress: EgressClient, field: string, url: string): Promise<void> {
  try {
    await egress.check(url.replaceAll('{{title}}', 'title').replaceAll('{{content}}', 'content'));
  } catch (error) {
    if (error instanceof EgressBlockedError) throw new UserError(`${field}: ${error.message}`, 'invalid_request', 200, field);
    if (error instanceof EgressError && error.kind === 'dns')
      throw new UserError(`${field}: ${msg('egress.host_unresolved', { host: new URL(url).hostname })}`, 'invalid_request', 200, field);
    if (error instanceof EgressError) throw new UserError(`${field}: ${msg('notify.address_unchecked')}`, 'invalid_request', 200, field);
    throw error;
  }
}
