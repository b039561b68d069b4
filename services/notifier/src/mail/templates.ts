import { z } from 'zod';
import type { Locale } from '@aigw/contracts';

/**
 * The mails the notifier writes, in both console languages. Each template declares its
 * parameters (validated before anything is queued) and its words per locale; the text and HTML
 * bodies are built from the same lines, and every parameter is escaped in the HTML.
 */

const paramSchemas = {
  /** Identity's registration and email-binding code. */
  verification_code: z.object({ code: z.string().min(1), minutes: z.string().min(1), system_name: z.string() }),
  /** Identity's password-reset link (ServerAddress + the reset page). */
  password_reset: z.object({ link: z.string().min(1), minutes: z.string().min(1), system_name: z.string() }),
  /** A user's balance went below QuotaRemindThreshold; figures already formatted. */
  low_balance: z.object({ username: z.string(), quota: z.string(), threshold: z.string(), link: z.string(), system_name: z.string() }),
  /** To root: a channel was disabled automatically. */
  channel_disabled: z.object({ name: z.string(), id: z.string(), reason: z.string(), time: z.string(), system_name: z.string() }),
};

export type MailTemplate = keyof typeof paramSchemas;
export type MailParams<T extends MailTemplate> = z.infer<(typeof paramSchemas)[T]>;
export const mailTemplates = Object.keys(paramSchemas) as MailTemplate[];

/** A piece of a line: plain words, a parameter shown strongly, or a link. */
type Inline = string | { strong: string } | { link: string; label?: string };
type Line = Inline[];

interface Wording<T extends MailTemplate> {
  subject(params: MailParams<T>): string;
  lines(params: MailParams<T>): Line[];
}

const wordings: { [T in MailTemplate]: Record<Locale, Wording<T>> } = {
  verification_code: {
    'zh-CN': {
      subject: (p) => `${p.system_name}邮箱验证邮件`,
      lines: (p) => [
        [`您好，你正在进行${p.system_name}邮箱验证。`],
        ['您的验证码为：', { strong: p.code }],
        [`验证码 ${p.minutes} 分钟内有效，如果不是本人操作，请忽略。`],
      ],
    },
    'en-US': {
      subject: (p) => `${p.system_name} email verification`,
      lines: (p) => [
        [`Hello, you are verifying your email address for ${p.system_name}.`],
        ['Your verification code is: ', { strong: p.code }],
        [`The code is valid for ${p.minutes} minutes. If you did not ask for it, please ignore this mail.`],
      ],
    },
  },
  password_reset: {
    'zh-CN': {
      subject: (p) => `${p.system_name}密码重置`,
      lines: (p) => [
        [`您好，你正在进行${p.system_name}密码重置。`],
        ['点击 ', { link: p.link, label: '此处' }, ' 进行密码重置。'],
        ['如果链接无法点击，请尝试点击下面的链接或将其复制到浏览器中打开：'],
        [{ link: p.link }],
        [`重置链接 ${p.minutes} 分钟内有效，如果不是本人操作，请忽略。`],
      ],
    },
    'en-US': {
      subject: (p) => `${p.system_name} password reset`,
      lines: (p) => [
        [`Hello, you asked to reset your ${p.system_name} password.`],
        ['Click ', { link: p.link, label: 'here' }, ' to reset it.'],
        ['If the link does not open, copy it into your browser:'],
        [{ link: p.link }],
        [`The link is valid for ${p.minutes} minutes. If you did not ask for it, please ignore this mail.`],
      ],
    },
  },
  low_balance: {
    'zh-CN': {
      subject: (p) => `${p.system_name}：您的额度即将用尽`,
      lines: (p) => [
        [`${p.username}，您好！您的额度即将用尽，当前剩余额度为 `, { strong: p.quota }, `（提醒阈值 ${p.threshold}）。`],
        ['为了不影响您的使用，请及时充值：', { link: p.link }],
      ],
    },
    'en-US': {
      subject: (p) => `${p.system_name}: your balance is running low`,
      lines: (p) => [
        [`Hello ${p.username}, your balance is running low: `, { strong: p.quota }, ` left (warning threshold ${p.threshold}).`],
        ['To keep your requests going, please top up: ', { link: p.link }],
      ],
    },
  },
  channel_disabled: {
    'zh-CN': {
      subject: (p) => `通道「${p.name}」（#${p.id}）已被禁用`,
      lines: (p) => [[`通道「${p.name}」（#${p.id}）已被禁用，原因：`, { strong: p.reason }], [`禁用时间：${p.time}`]],
    },
    'en-US': {
      subject: (p) => `Channel "${p.name}" (#${p.id}) has been disabled`,
      lines: (p) => [[`Channel "${p.name}" (#${p.id}) has been disabled. Reason: `, { strong: p.reason }], [`Disabled at: ${p.time}`]],
    },
  },
};

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export type ParamsCheck<T extends MailTemplate> = { ok: true; params: MailParams<T> } | { ok: false; message: string };

/** Checks a template's parameters (mail requests arrive as a string map). */
export function checkParams<T extends MailTemplate>(template: T, params: unknown): ParamsCheck<T> {
  const parsed = paramSchemas[template].safeParse(params);
  if (parsed.success) return { ok: true, params: parsed.data as MailParams<T> };
  return { ok: false, message: parsed.error.issues.map((issue) => `${issue.path.join('.') || template}: ${issue.message}`).join('; ') };
}

export function renderMail<T extends MailTemplate>(template: T, locale: Locale, params: MailParams<T>): RenderedMail {
  const wording = wordings[template][locale];
  const lines = wording.lines(params);
  // Subjects are one header line whatever a parameter holds.
  const subject = wording.subject(params).replace(/[\r\n]+/g, ' ');
  const text = lines.map((line) => line.map(inlineText).join('')).join('\n\n');
  const html = `<!DOCTYPE html><html lang="${locale}"><body>${lines.map((line) => `<p>${line.map(inlineHtml).join('')}</p>`).join('')}</body></html>`;
  return { subject, text: `${text}\n`, html };
}

function inlineText(inline: Inline): string {
  if (typeof inline === 'string') return inline;
  if ('strong' in inline) return inline.strong;
  return inline.label ? `${inline.label} (${inline.link})` : inline.link;
}

function inlineHtml(inline: Inline): string {
  if (typeof inline === 'string') return escapeHtml(inline);
  if ('strong' in inline) return `<strong>${escapeHtml(inline.strong)}</strong>`;
  // Only web links become anchors; anything else is shown as text.
  const label = escapeHtml(inline.label ?? inline.link);
  return /^https?:\/\//i.test(inline.link) ? `<a href="${escapeHtml(inline.link)}">${label}</a>` : label;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A balance as the console shows it: currency (quota / QuotaPerUnit) or the raw figure. */
export function formatQuota(quota: number, display: { inCurrency: boolean; quotaPerUnit: number }): string {
  if (!display.inCurrency) return String(quota);
  const amount = (Math.abs(quota) / display.quotaPerUnit).toFixed(2);
  return `${quota < 0 ? '-' : ''}$${amount}`;
}

/** Unix seconds as `YYYY-MM-DD HH:mm:ss UTC`. */
export function formatTime(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
