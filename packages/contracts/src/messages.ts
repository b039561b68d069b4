import { localeFromAcceptLanguage, type Locale } from './locale.js';

/**
 * What the server says to console users, by id, in zh-CN and en-US (docs/architecture.md section
 * 3.12). A route throws `UserError(msg(id, params))` or a schema names `msg(id)` as its message;
 * the one error handler answers it in the caller's language: the console sends its own as
 * Accept-Language, any other client gets its Accept-Language, zh-CN when it sends none. Relay
 * routes keep the providers' error shapes and their own words.
 */
export const serverMessageTemplates = {
  'auth.wrong_credentials': { 'zh-CN': '用户名或密码错误，或用户已被封禁', 'en-US': 'username or password is wrong, or the user has been banned' },
  'redemption.invalid': { 'zh-CN': '兑换码无效或已被使用', 'en-US': 'invalid or already used redemption code' },
  'transfer.minimum': { 'zh-CN': 'quota：最小划转额度为 {minimum}', 'en-US': 'quota: minimum transfer amount is {minimum}' },
  'topup.disabled': { 'zh-CN': '管理员未开启在线充值！', 'en-US': 'the administrator has not turned on online top-up' },
  'channels.select_to_delete': { 'zh-CN': '请先选择要删除的通道！', 'en-US': 'select the channels to delete first' },
  'channels.select_to_tag': { 'zh-CN': '请先选择要设置标签的渠道！', 'en-US': 'select the channels to tag first' },
  'channels.model_mapping_json': { 'zh-CN': '模型映射必须是合法的 JSON 格式！', 'en-US': 'model mapping must be a JSON object' },
  'users.credentials_required': { 'zh-CN': '用户名和密码不能为空', 'en-US': 'username and password cannot be empty' },
} as const satisfies Record<string, Record<Locale, string>>;

export type MessageId = keyof typeof serverMessageTemplates;

const TOKEN = /msg:([a-z0-9_.]+)(?::(\{[^{}]*\}))?/g;

/**
 * A message by id, as text a route or a schema carries until the error handler words it in the
 * caller's language (`localizeMessage`). Parameters are strings, shown as they are.
 */
export function msg(id: MessageId, params?: Record<string, string>): string {
  return params ? `msg:${id}:${JSON.stringify(params)}` : `msg:${id}`;
}

/** `text` with every `msg(...)` in it worded in `locale`; other text as it is. */
export function localizeMessage(text: string, locale: Locale): string {
  if (!text.includes('msg:')) return text;
  return text.replace(TOKEN, (whole, id: string, json: string | undefined) => {
    const templates = (serverMessageTemplates as Record<string, Record<Locale, string>>)[id];
    if (!templates) return whole;
    let params: Record<string, unknown> = {};
    try {
      params = json ? (JSON.parse(json) as Record<string, unknown>) : {};
    } catch {
      return whole;
    }
    return templates[locale].replace(/\{(\w+)\}/g, (placeholder, name: string) => (name in params ? String(params[name]) : placeholder));
  });
}

/** The language a request asks for (its Accept-Language; zh-CN when none). */
export const requestLocale = (acceptLanguage: string | string[] | undefined): Locale =>
  localeFromAcceptLanguage(Array.isArray(acceptLanguage) ? acceptLanguage[0] : acceptLanguage);
