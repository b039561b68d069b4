import { z } from 'zod';
import { msg } from './messages/index.js';

/**
 * A user's notification settings (the established product's `PUT /api/user/setting`): how the
 * notifier reaches the user with their own notices (low balance; root's channel alerts), by one
 * method of the user's choosing. Identity keeps them on the user row; the notifier reads them
 * with `identity.user.contacts`.
 */
export const NotifyType = {
  Email: 'email',
  Webhook: 'webhook',
  Bark: 'bark',
  Gotify: 'gotify',
  WxPusher: 'wxpusher',
} as const;
export type NotifyType = (typeof NotifyType)[keyof typeof NotifyType];
export const notifyTypes = Object.values(NotifyType) as [NotifyType, ...NotifyType[]];

/** Gotify's message priorities run 0 (silent) to 10 (loudest); 5 is its default. */
export const GOTIFY_DEFAULT_PRIORITY = 5;

/** An http(s) URL without credentials, or empty. */
const optionalUrl = (field: string) =>
  z
    .string()
    .trim()
    .max(2048, msg('notices.field_too_long', { field }))
    .refine(
      (value) => value === '' || (z.url({ protocol: /^https?$/ }).safeParse(value).success && !/^https?:\/\/[^/?#]*@/i.test(value)),
      msg('notices.url_invalid', { field }),
    );

/** Everything stored, secrets included: what identity keeps and hands the notifier. */
export const notificationSettingsSchema = z.object({
  notify_type: z.enum(notifyTypes),
  /** Warn below this balance (quota units); 0: root's QuotaRemindThreshold. */
  quota_warning_threshold: z.number().int().min(0).max(1e15),
  /** Where webhook notices are POSTed, signed with `webhook_secret` like root's webhooks. */
  webhook_url: z.string(),
  webhook_secret: z.string(),
  /** Another address than the account's for mail notices; '' the account's. */
  notification_email: z.string(),
  /** A Bark push URL (`https://api.day.app/<device key>`), optionally with `{{title}}` and `{{content}}`. */
  bark_url: z.string(),
  /** A Gotify server and an application token of it. */
  gotify_url: z.string(),
  gotify_token: z.string(),
  gotify_priority: z.number().int().min(0).max(10),
  /** Accept models without a price (the established product's switch; kept for compatibility). */
  accept_unset_model_ratio_model: z.boolean(),
  /** The user's WxPusher uid once they scanned the binding QR code; '' unbound. */
  wxpusher_uid: z.string(),
});
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;

export const defaultNotificationSettings: NotificationSettings = {
  notify_type: NotifyType.Email,
  quota_warning_threshold: 0,
  webhook_url: '',
  webhook_secret: '',
  notification_email: '',
  bark_url: '',
  gotify_url: '',
  gotify_token: '',
  gotify_priority: GOTIFY_DEFAULT_PRIORITY,
  accept_unset_model_ratio_model: false,
  wxpusher_uid: '',
};

/**
 * `PUT /api/user/setting`. Secrets (`webhook_secret`, `gotify_token`) are write-only: left out,
 * the stored one is kept. The method's own fields are required with it (checked against what is
 * stored too, so a kept secret counts).
 */
export const updateUserSettingBodySchema = z.object({
  notify_type: z.enum(notifyTypes, { error: msg('notices.notify_type_invalid', { values: notifyTypes.join(', ') }) }),
  quota_warning_threshold: z
    .number({ error: msg('notices.threshold_number') })
    .int(msg('notices.threshold_integer'))
    .min(0, msg('notices.threshold_negative'))
    .max(1e15, msg('notices.threshold_too_large'))
    .default(0),
  webhook_url: optionalUrl('webhook_url').default(''),
  webhook_secret: z
    .string()
    .max(256, msg('notices.field_longer_than', { field: 'webhook_secret', max: '256' }))
    .optional(),
  notification_email: z
    .string()
    .trim()
    .max(254, msg('notices.field_too_long', { field: 'notification_email' }))
    .refine((value) => value === '' || z.email().safeParse(value).success, msg('notices.email_invalid'))
    .default(''),
  bark_url: optionalUrl('bark_url').default(''),
  gotify_url: optionalUrl('gotify_url').default(''),
  gotify_token: z
    .string()
    .trim()
    .max(256, msg('notices.field_longer_than', { field: 'gotify_token', max: '256' }))
    .optional(),
  gotify_priority: z
    .number({ error: msg('notices.priority_number') })
    .int(msg('notices.priority_integer'))
    .min(0, msg('notices.priority_range'))
    .max(10, msg('notices.priority_range'))
    .default(GOTIFY_DEFAULT_PRIORITY),
  accept_unset_model_ratio_model: z.boolean().default(false),
});
export type UpdateUserSettingBody = z.input<typeof updateUserSettingBodySchema>;

/** What `GET /api/user/setting` answers: the settings with the secrets left out, and whether each is set. */
export type UserSettingView = Omit<NotificationSettings, 'webhook_secret' | 'gotify_token'> & {
  webhook_secret_set: boolean;
  gotify_token_set: boolean;
};

export function userSettingView(settings: NotificationSettings): UserSettingView {
  const { webhook_secret, gotify_token, ...shown } = settings;
  return { ...shown, webhook_secret_set: webhook_secret !== '', gotify_token_set: gotify_token !== '' };
}

/**
 * The fields a method cannot do without, judged on the settings as they would be stored: the
 * message of each one missing (`msg(id)`, identity's words for the settings form), keyed by field.
 */
export function missingNotificationFields(settings: NotificationSettings): Partial<Record<keyof NotificationSettings, string>> {
  switch (settings.notify_type) {
    case NotifyType.Webhook:
      return settings.webhook_url ? {} : { webhook_url: msg('notify.webhook_url_required') };
    case NotifyType.Bark:
      return settings.bark_url ? {} : { bark_url: msg('notify.bark_url_required') };
    case NotifyType.Gotify:
      return {
        ...(settings.gotify_url ? {} : { gotify_url: msg('notify.gotify_url_required') }),
        ...(settings.gotify_token ? {} : { gotify_token: msg('notify.gotify_token_required') }),
      };
    case NotifyType.WxPusher:
      return settings.wxpusher_uid ? {} : { wxpusher_uid: msg('notify.wxpusher_unbound') };
    default:
      return {};
  }
}

/** `GET /api/user/wxpusher/qrcode`: the QR code to scan and when it stops working. */
export interface WxPusherQrCode {
  /** The QR code's content (WxPusher's image link); the console draws it. */
  url: string;
  /** WxPusher's code of this QR code: what the console polls with. */
  code: string;
  /** Unix ms after which the code no longer binds; fetch another. */
  expires_at: number;
}

/** `POST /api/user/wxpusher/bind`: the code of the QR code shown. */
export const wxPusherBindBodySchema = z.object({
  code: z
    .string()
    .trim()
    .min(1, msg('notices.code_required'))
    .max(256, msg('notices.field_too_long', { field: 'code' })),
});

/** Its answer: bound (the uid stored), or still waiting for the scan. */
export interface WxPusherBindResult {
  bound: boolean;
}
