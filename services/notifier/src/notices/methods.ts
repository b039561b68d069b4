import { z } from 'zod';
import { NotifyType, type NotificationSettings } from '@aigw/contracts';
import { signedHeaders } from '../domain/webhook-signature.js';

/**
 * How each method of a user's choosing is called (pure: data in, a request out). The request is
 * built when the notice is queued and kept sealed on its delivery row (it may hold the user's
 * Gotify token or webhook secret); a webhook is signed anew on every attempt.
 */

/** A notice as the user reads it, already in their language. */
export interface NoticeText {
  /** What kind of notice (the mail template's name): `low_balance`, `channel_disabled`. */
  kind: string;
  title: string;
  content: string;
}

/** What a delivery row keeps (sealed) to make its calls. */
export const storedNoticeSchema = z.discriminatedUnion('method', [
  z.object({ method: z.literal(NotifyType.Webhook), url: z.string(), secret: z.string(), id: z.string(), body: z.string() }),
  z.object({ method: z.literal(NotifyType.Bark), url: z.string(), body: z.string().nullable() }),
  z.object({ method: z.literal(NotifyType.Gotify), url: z.string(), body: z.string() }),
  /** WxPusher's app token is root's option, read at send time (not stored with the notice). */
  z.object({ method: z.literal(NotifyType.WxPusher), uid: z.string(), content: z.string(), summary: z.string() }),
]);
export type StoredNotice = z.infer<typeof storedNoticeSchema>;

/** The subject a user's webhook notice is signed with (`X-Webhook-Subject`). */
export const USER_NOTICE_SUBJECT = 'user.notice';
/** WxPusher's summary is shown in the WeChat message list; it takes at most 100 characters. */
const WXPUSHER_SUMMARY_MAX = 100;

/**
 * The request for `settings.notify_type` (never email: mail has its own path), or null when the
 * method lacks what it needs (a URL, a token, the WxPusher binding).
 */
export function buildNotice(settings: NotificationSettings, notice: NoticeText, id: string, nowMs = Date.now()): StoredNotice | null {
  switch (settings.notify_type) {
    case NotifyType.Webhook: {
      if (!settings.webhook_url) return null;
      // The established product's notice shape, so receivers written for it keep working.
      const body = JSON.stringify({ type: notice.kind, title: notice.title, content: notice.content, values: [], timestamp: Math.floor(nowMs / 1000) });
      return { method: NotifyType.Webhook, url: settings.webhook_url, secret: settings.webhook_secret, id, body };
    }
    case NotifyType.Bark: {
      if (!settings.bark_url) return null;
      const template = settings.bark_url;
      // A template with placeholders is a GET of the filled-in URL; a bare device URL gets Bark's JSON push.
      if (template.includes('{{title}}') || template.includes('{{content}}')) {
        const url = template.replaceAll('{{title}}', encodeURIComponent(notice.title)).replaceAll('{{content}}', encodeURIComponent(notice.content));
        return { method: NotifyType.Bark, url, body: null };
      }
      return { method: NotifyType.Bark, url: template, body: JSON.stringify({ title: notice.title, body: notice.content }) };
    }
    case NotifyType.Gotify: {
      if (!settings.gotify_url || !settings.gotify_token) return null;
      const url = `${settings.gotify_url.replace(/\/+$/, '')}/message?token=${encodeURIComponent(settings.gotify_token)}`;
      const body = JSON.stringify({
        title: notice.title,
        message: notice.content,
        priority: settings.gotify_priority,
        extras: { 'client::display': { contentType: 'text/plain' } },
      });
      return { method: NotifyType.Gotify, url, body };
    }
    case NotifyType.WxPusher:
      if (!settings.wxpusher_uid) return null;
      return {
        method: NotifyType.WxPusher,
        uid: settings.wxpusher_uid,
        content: `${notice.title}\n\n${notice.content}`,
        summary: notice.title.slice(0, WXPUSHER_SUMMARY_MAX),
      };
    default:
      return null;
  }
}

/** The delivery row's `target`: the method and where, never a token or a secret. */
export function noticeTarget(notice: StoredNotice): string {
  if (notice.method === NotifyType.WxPusher) return `wxpusher ${notice.uid}`;
  return `${notice.method} ${new URL(notice.url).host}`;
}

/** One HTTP call of a notice. */
export interface NoticeCall {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** The call of one attempt: a webhook signed now (when the user set a secret). */
export function noticeCall(notice: StoredNotice, wxpusher: { baseUrl: string; appToken: string }, nowMs = Date.now()): NoticeCall {
  const json = { 'content-type': 'application/json', 'user-agent': 'aigw-notifier/1' };
  switch (notice.method) {
    case NotifyType.Webhook: {
      const headers = notice.secret ? signedHeaders({ id: notice.id, subject: USER_NOTICE_SUBJECT, body: notice.body }, notice.secret, nowMs) : json;
      return { url: notice.url, method: 'POST', headers, body: notice.body };
    }
    case NotifyType.Bark:
      return notice.body === null
        ? { url: notice.url, method: 'GET', headers: { 'user-agent': json['user-agent'] } }
        : { url: notice.url, method: 'POST', headers: json, body: notice.body };
    case NotifyType.Gotify:
      return { url: notice.url, method: 'POST', headers: json, body: notice.body };
    case NotifyType.WxPusher:
      return {
        url: `${wxpusher.baseUrl}/api/send/message`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ appToken: wxpusher.appToken, content: notice.content, summary: notice.summary, contentType: 1, uids: [notice.uid] }),
      };
  }
}

/** WxPusher answers 200 with its own code: anything but 1000 is a failure. Bark answers `{code: 200}` likewise. */
const wxPusherAnswerSchema = z.object({ code: z.number(), msg: z.string().catch('') });
const barkAnswerSchema = z.object({ code: z.number(), message: z.string().catch('') });

/**
 * The failure a 2xx answer still reports (WxPusher's and Bark's codes), or '' when it is a success:
 * the delivery row's recorded error, with the receiver's own words.
 */
export function answerFailure(method: StoredNotice['method'], answer: unknown): string {
  if (method === NotifyType.WxPusher) {
    const parsed = wxPusherAnswerSchema.safeParse(answer);
    // not a console message: recorded on the delivery row.
    if (!parsed.success) return 'WxPusher answered without a code';
    // not a console message: recorded on the delivery row, with what WxPusher said.
    return parsed.data.code === 1000 ? '' : `WxPusher code ${parsed.data.code}: ${parsed.data.msg}`;
  }
  if (method === NotifyType.Bark) {
    const parsed = barkAnswerSchema.safeParse(answer);
    // A Bark-compatible server that answers otherwise is judged by its HTTP status alone.
    // not a console message: recorded on the delivery row, with what Bark said.
    if (parsed.success && parsed.data.code !== 200) return `Bark code ${parsed.data.code}: ${parsed.data.message}`;
  }
  return '';
}
