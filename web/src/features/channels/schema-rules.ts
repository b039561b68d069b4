import { localizeMessage, localeFromAcceptLanguage } from '@aigw/contracts';
import type { IntlShape } from 'react-intl';

/** The part of a zod issue the form reads (zod stays a dependency of the contracts only). */
export interface SchemaIssue {
  code: string;
  message: string;
  path: PropertyKey[];
  origin?: string;
  maximum?: unknown;
  minimum?: unknown;
}

/** Any contracts schema, as far as the form uses it. */
export interface SchemaLike {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: SchemaIssue[] } };
}

/** A contracts check in the user's language: the common limits in the form's words, the rest from the server's catalogue. */
export function issueText(issue: SchemaIssue, intl: IntlShape): string {
  const t = intl.formatMessage;
  if (issue.code === 'too_big' && issue.origin === 'string') {
    return t({ id: 'pages.channels.form.limit.maxLength', defaultMessage: '最多 {max} 个字符' }, { max: String(issue.maximum) });
  }
  if (issue.code === 'too_big') return t({ id: 'pages.channels.form.limit.max', defaultMessage: '不能大于 {max}' }, { max: String(issue.maximum) });
  if (issue.code === 'too_small' && issue.origin === 'string') return t({ id: 'pages.channels.form.limit.empty', defaultMessage: '不能为空' });
  if (issue.code === 'too_small') return t({ id: 'pages.channels.form.limit.min', defaultMessage: '不能小于 {min}' }, { min: String(issue.minimum) });
  // Any other check words its message from the server's catalogue, in the console's language.
  return localizeMessage(issue.message, localeFromAcceptLanguage(intl.locale));
}

/** An antd rule checking a field against its contracts schema (after `toBody`, the value the form sends). */
export function schemaRule(schema: SchemaLike, intl: IntlShape, toBody: (value: unknown) => unknown = (value) => value ?? '') {
  return {
    validator: async (_rule: unknown, value: unknown) => {
      const result = schema.safeParse(toBody(value));
      if (!result.success) throw new Error(issueText(result.error.issues[0]!, intl));
    },
  };
}
