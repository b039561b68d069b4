import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { msg, NotifyType, type WxPusherBindResult, type WxPusherQrCode } from '@aigw/contracts';
import { UserError, type EgressClient, type Logger } from '@aigw/platform';
import type { IdentityContext } from './context.js';
import { UserEntity } from './entities/user.entity.js';
import { readNotificationSettings, sealNotificationSettings } from './notification-settings.js';

/**
 * Binding a user's WeChat to WxPusher (https://wxpusher.zjiecode.com/docs): identity asks
 * WxPusher for a parametric QR code of root's application (`WxPusherAppToken`), remembers whose
 * it is in the Kv until it expires, and, when the console asks, whether someone scanned it: the
 * uid WxPusher answers is stored on the user (`wxpusher_uid`), where the notifier sends notices.
 */

/** How long a QR code binds, in seconds (WxPusher's own default). */
export const QR_CODE_VALID_SECONDS = 1800;
const QR_KEY = (code: string) => `identity:wxpusher:qr:${code}`;

/** WxPusher answers `{code, msg, data}`; 1000 is success. Parsed leniently: only what is used. */
const answerSchema = <T extends z.ZodType>(data: T) => z.object({ code: z.number(), msg: z.string().catch(''), data: data.optional() });
const qrCodeSchema = answerSchema(z.object({ url: z.string().min(1), code: z.string().min(1), expires: z.number().optional() }).nullable());
const scanSchema = answerSchema(z.string().nullable());
const SUCCESS = 1000;

function settings(context: IdentityContext): { baseUrl: string; appToken: string } {
  const appToken = context.options.get('WxPusherAppToken');
  if (!appToken) throw new UserError(msg('wxpusher.not_configured'));
  return { baseUrl: context.options.get('WxPusherBaseUrl') || 'https://wxpusher.zjiecode.com', appToken };
}

/** One call to WxPusher; trouble reaching it is logged for root and told the user in general terms. */
async function callWxPusher<T extends z.ZodType>(
  { egress, logger }: { egress: EgressClient; logger: Logger },
  url: string,
  init: { method: 'GET' | 'POST'; body?: unknown },
  schema: T,
) {
  let answer;
  try {
    answer = await egress.fetchJson(url, {
      method: init.method,
      headers: { accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    // The details (address, blocked range) are for the administrator's log, not the user.
    logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'WxPusher not reached');
    throw new UserError(msg('wxpusher.unreachable'), 'wxpusher_unreachable');
  }
  const parsed = schema.safeParse(answer.data);
  if (answer.statusCode !== 200 || !parsed.success) {
    logger.warn({ status: answer.statusCode, excerpt: answer.text.slice(0, 200) }, 'WxPusher answered unexpectedly');
    throw new UserError(msg('wxpusher.unexpected_answer', { status: String(answer.statusCode) }), 'wxpusher_unreachable');
  }
  return parsed.data;
}

/** A fresh QR code for `userId`: WxPusher's `extra` names our user (it comes back in WxPusher's own callbacks). */
export async function createQrCode(context: IdentityContext, egress: EgressClient, userId: number): Promise<WxPusherQrCode> {
  const { baseUrl, appToken } = settings(context);
  const answer = await callWxPusher(
    { egress, logger: context.logger },
    `${baseUrl}/api/fun/create/qrcode`,
    { method: 'POST', body: { appToken, extra: `aigw-user-${userId}-${randomUUID().slice(0, 8)}`, validTime: QR_CODE_VALID_SECONDS } },
    qrCodeSchema,
  );
  if (answer.code !== SUCCESS || !answer.data) {
    // WxPusher's own words, or its code when it gave none.
    throw new UserError(msg('wxpusher.qr_code_refused', { reason: answer.msg || `code ${answer.code}` }));
  }
  const expiresAt = answer.data.expires ?? Date.now() + QR_CODE_VALID_SECONDS * 1000;
  const ttlMs = Math.max(1_000, expiresAt - Date.now());
  await context.kv.set(QR_KEY(answer.data.code), String(userId), { ttlMs });
  return { url: answer.data.url, code: answer.data.code, expires_at: expiresAt };
}

/**
 * Whether the QR code `code` (one this user fetched, not expired) was scanned; when it was, the
 * uid is stored and the code forgotten. Only the user the code was made for may bind with it.
 */
export async function bindByQrCode(context: IdentityContext, egress: EgressClient, userId: number, code: string): Promise<WxPusherBindResult> {
  const owner = await context.kv.get(QR_KEY(code));
  if (owner !== String(userId)) throw new UserError(msg('wxpusher.qr_code_stale'));
  const { baseUrl } = settings(context);
  const answer = await callWxPusher(
    { egress, logger: context.logger },
    `${baseUrl}/api/fun/scan-qrcode-uid?code=${encodeURIComponent(code)}`,
    { method: 'GET' },
    scanSchema,
  );
  if (answer.code !== SUCCESS || !answer.data) return { bound: false };
  const uid = answer.data.slice(0, 64);
  await context.db.getRepository(UserEntity).update({ id: userId }, { wxpusher_uid: uid });
  await context.kv.delete(QR_KEY(code));
  context.logger.info({ userId }, 'WxPusher bound');
  return { bound: true };
}

/** Forgets the uid; a user whose notices went by WxPusher gets them by mail again. */
export async function unbindWxPusher(context: IdentityContext, userId: number): Promise<void> {
  const users = context.db.getRepository(UserEntity);
  const user = await users.findOneBy({ id: userId });
  if (!user) return;
  const settings = readNotificationSettings(user, context.notificationKey);
  const changes: Partial<UserEntity> = { wxpusher_uid: '' };
  if (settings.notify_type === NotifyType.WxPusher) {
    changes.notification_settings = sealNotificationSettings({ ...settings, notify_type: NotifyType.Email }, context.notificationKey);
  }
  await users.update({ id: userId }, changes);
}
