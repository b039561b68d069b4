import {
  subjectPatternIssue,
  WEBHOOK_DESCRIPTION_MAX,
  WEBHOOK_SECRET_MIN,
  WEBHOOK_SUBJECTS_MAX,
  WEBHOOK_URL_MAX,
  webhookSecretSchema,
  webhookSubjects,
  webhookUrlSchema,
} from '@aigw/contracts';
import type { Text } from '../../../app/use-text';

/**
 * The endpoint form's rules: the contracts' schemas decide, the messages are the console's
 * (both languages). The server checks the same and, beyond them, the egress guard.
 */

export function urlProblem(t: Text, value: string | undefined): string | null {
  const url = (value ?? '').trim();
  if (!url) return t('pages.settings.webhooks.form.url.required', '请输入回调地址');
  if (url.length > WEBHOOK_URL_MAX) return t('pages.settings.webhooks.form.url.tooLong', '地址最长 {max} 个字符', { max: WEBHOOK_URL_MAX });
  if (webhookUrlSchema.safeParse(url).success) return null;
  if (/^[a-z]+:\/\/[^/?#]*@/i.test(url)) return t('pages.settings.webhooks.form.url.credentials', '地址中不能包含用户名或密码');
  return t('pages.settings.webhooks.form.url.invalid', '请输入以 http:// 或 https:// 开头的完整地址');
}

export function subjectsProblem(t: Text, value: string[] | undefined): string | null {
  const patterns = (value ?? []).map((pattern) => pattern.trim()).filter(Boolean);
  if (patterns.length === 0) return t('pages.settings.webhooks.form.subjects.required', '请至少选择一个事件');
  if (patterns.length > WEBHOOK_SUBJECTS_MAX) return t('pages.settings.webhooks.form.subjects.tooMany', '最多 {max} 个事件模式', { max: WEBHOOK_SUBJECTS_MAX });
  for (const pattern of patterns) {
    const issue = subjectPatternIssue(pattern);
    if (issue === 'malformed') {
      return t('pages.settings.webhooks.form.subjects.malformed', '“{pattern}”不是有效的事件模式：用点分隔的小写名称，* 代表一段，末尾的 > 代表其余部分', {
        pattern,
      });
    }
    if (issue === 'no_match') return t('pages.settings.webhooks.form.subjects.noMatch', '“{pattern}”不匹配任何事件', { pattern });
  }
  return null;
}

export function descriptionProblem(t: Text, value: string | undefined): string | null {
  return (value ?? '').trim().length > WEBHOOK_DESCRIPTION_MAX
    ? t('pages.settings.webhooks.form.description.tooLong', '描述最长 {max} 个字符', { max: WEBHOOK_DESCRIPTION_MAX })
    : null;
}

/** Blank is fine: the server then generates the secret. */
export function secretProblem(t: Text, value: string | undefined): string | null {
  if (!value) return null;
  return webhookSecretSchema.safeParse(value).success
    ? null
    : t('pages.settings.webhooks.form.secret.invalid', '密钥至少 {min} 个字符，且只能是不含空格的可打印 ASCII 字符', { min: WEBHOOK_SECRET_MIN });
}

/** The filter picker's choices: every deliverable subject, then each domain's wildcard. */
export function subjectChoices(): string[] {
  const domains = [...new Set(webhookSubjects.map((subject) => subject.split('.')[0]!))];
  return [...webhookSubjects, ...domains.map((domain) => `${domain}.>`)];
}

/** The form field a server refusal names (`url: ...`, `subjects.1: ...`), with the rest of the message. */
export function fieldOfServerMessage(message: string): { field: 'url' | 'subjects' | 'description' | 'secret'; text: string } | null {
  const match = /^(url|subjects|description|secret)(?:\.\d+)?: (.*)$/s.exec(message);
  return match ? { field: match[1] as 'url' | 'subjects' | 'description' | 'secret', text: match[2]! } : null;
}
