import type { Locale } from '../locale.js';
import type { Catalogue } from './catalogue.js';
import { commonMessages } from './common.js';
import { identityMessages } from './identity.js';
import { signInMessages } from './sign-in.js';
import { billingMessages } from './billing.js';
import { channelsMessages } from './channels.js';
import { notifierMessages } from './notifier.js';
import { gatewayMessages } from './gateway.js';

/**
 * What the server says to console users, by id, in zh-CN and en-US (docs/architecture.md section
 * 3.12), one file per service beside this one. A route throws `UserError(msg(id, params))`,
 * answers `message: msg(id)`, or a schema names `msg(id)` as its message; the platform words it
 * in the caller's language: the console sends its own as Accept-Language, any other client gets
 * its Accept-Language, zh-CN when it sends none. Relay routes keep the providers' error shapes
 * and their own words.
 */
export const serverMessageTemplates = {
  ...commonMessages,
  ...identityMessages,
  ...signInMessages,
  ...billingMessages,
  ...channelsMessages,
  ...notifierMessages,
  ...gatewayMessages,
} as const satisfies Catalogue;

/** Every area's catalogue, for the check that no two name the same id. */
export const messageCatalogues: readonly Catalogue[] = [
  commonMessages,
  identityMessages,
  signInMessages,
  billingMessages,
  channelsMessages,
  notifierMessages,
  gatewayMessages,
];

export type MessageId = keyof typeof serverMessageTemplates;

/**
 * A message as a token: `msg:<id>;`, or `msg:<id>:<parameters>;` with the parameters as
 * URI-encoded JSON. The `;` ends it, so a token sits inside other text ("name: msg:x.y;.") and a
 * parameter holds any character (braces, `;`, quotes) without breaking it.
 */
const TOKEN = /msg:([a-z0-9_.]+)(?::([^;\s]*))?;/g;

/**
 * A message by id, as text a route or a schema carries until the platform words it in the
 * caller's language (`localizeMessage`). Parameters are strings, shown as they are.
 */
export function msg(id: MessageId, params?: Record<string, string>): string {
  return params ? `msg:${id}:${encodeURIComponent(JSON.stringify(params))};` : `msg:${id};`;
}

/** Whether `text` carries a message of the catalogue to word. */
export const hasMessage = (text: string): boolean => text.includes('msg:');

/** `text` with every `msg(...)` in it worded in `locale`; other text as it is. */
export function localizeMessage(text: string, locale: Locale): string {
  if (!hasMessage(text)) return text;
  return text.replace(TOKEN, (whole, id: string, encoded: string | undefined) => {
    const templates = (serverMessageTemplates as Record<string, Record<Locale, string>>)[id];
    if (!templates) return whole;
    let params: Record<string, unknown> = {};
    try {
      params = encoded ? (JSON.parse(decodeURIComponent(encoded)) as Record<string, unknown>) : {};
    } catch {
      return whole;
    }
    return templates[locale].replace(/\{(\w+)\}/g, (placeholder, name: string) => (name in params ? String(params[name]) : placeholder));
  });
}

/**
 * The language a request asks for: the first of its Accept-Language tags that is Chinese or
 * English, `fallback` (zh-CN unless told) when it names neither or sends none (`*`, as Node's
 * fetch sends, names neither).
 */
export function requestLocale(acceptLanguage: string | string[] | undefined, fallback: Locale = 'zh-CN'): Locale {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : (acceptLanguage ?? '');
  for (const tag of header.split(',')) {
    const language = tag.trim().toLowerCase();
    if (language.startsWith('zh')) return 'zh-CN';
    if (language.startsWith('en')) return 'en-US';
  }
  return fallback;
}

export * from './issues.js';
