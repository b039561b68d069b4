import { z } from 'zod';

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
    .max(2048, `${field} is too long`)
    .refine(
      (value) => value === '' || (z.url({ protocol: /^https?$/ }).safeParse(value).success && !/^https?:\/\/[^/?#]*@/i.test(value)),
      `${field} must be an http(s) URL without user name or password`,
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
  notify_type: z.enum(notifyTypes, { error: `notify_type must be one of ${notifyTypes.join(', ')}` }),
  quota_warning_threshold: z
    .number({ error: 'quota_warning_threshold must be a number' })
    .int('quota_warning_threshold must be an integer')
    .min(0, 'quota_warning_threshold must not be negative')
    .max(1e15, 'quota_warning_threshold is too large')
    .default(0),
  webhook_url: optionalUrl('webhook_url').default(''),
  webhook_secret: z.string().max(256, 'webhook_secret is longer than 256 characters').optional(),
  notification_email: z
    .string()
    .trim()
    .max(254, 'notification_email is too long')
    .refine((value) => value === '' || z.email().safeParse(value).success, 'notification_email must be an email address')
    .default(''),
  bark_url: optionalUrl('bark_url').default(''),
  gotify_url: optionalUrl('gotify_url').default(''),
  gotify_token: z.string().trim().max(256, 'gotify_token is longer than 256 characters').optional(),
  gotify_priority: z
    .number({ error: 'gotify_priority must be a number' })
    .int('gotify_priority must be an integer')
    .min(0, 'gotify_priority must be 0 to 10')
    .max(10, 'gotify_priority must be 0 to 10')
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
 * message of each one missing, keyed by field.
 */
export function missingNotificationFields(settings: NotificationSettings): Partial<Record<keyof NotificationSettings, string>> {
  switch (settings.notify_type) {
    case NotifyType.Webhook:
      return settings.webhook_url ? {} : { webhook_url: 'webhook_url is required for webhook notifications' };
    case NotifyType.Bark:
      return settings.bark_url ? {} : { bark_url: 'bark_url is required for Bark notifications' };
    case NotifyType.Gotify:
      return {
        ...(settings.gotify_url ? {} : { gotify_url: 'gotify_url is required for Gotify notifications' }),
        ...(settings.gotify_token ? {} : { gotify_token: 'gotify_token is required for Gotify notifications' }),
      };
    case NotifyType.WxPusher:
      return settings.wxpusher_uid ? {} : { wxpusher_uid: 'bind WxPusher first (scan the QR code) to use WxPusher notifications' };
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
export const wxPusherBindBodySchema = z.object({ code: z.string().trim().min(1, 'code is required').max(256, 'code is too long') });

/** Its answer: bound (the uid stored), or still waiting for the scan. */
export interface WxPusherBindResult {
  bound: boolean;
}
