import { localizeMessage, type Locale } from '@aigw/contracts';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One line for a failed validation, in the caller's language: each failing field named once, the
 * fields that fail for the same reason together, and no field named again where the message
 * already names it ("username and password cannot be empty", not that twice behind each name).
 * Whether a message names its fields is read from its English words, so both languages agree.
 */
export function validationMessage(issues: Array<{ where: string; message: string }>, locale: Locale, context?: string): string {
  const byMessage = new Map<string, string[]>();
  for (const issue of issues) {
    const fields = byMessage.get(issue.message) ?? [];
    const where = issue.where || context || '';
    if (where && !fields.includes(where)) fields.push(where);
    byMessage.set(issue.message, fields);
  }
  return [...byMessage]
    .map(([message, fields]) => {
      const english = localizeMessage(message, 'en-US');
      const worded = localizeMessage(message, locale);
      // A message written to name its fields starts with one ("name must be ...", "username and password ...").
      const names = (field: string) => new RegExp(`(^|[^\\w.])${escapeRegExp(field)}([^\\w]|$)`).test(english);
      const namesItself = fields.some((field) => new RegExp(`^${escapeRegExp(field)}([^\\w]|$)`).test(english)) && fields.every(names);
      return fields.length > 0 && !namesItself ? `${fields.join(', ')}: ${worded}` : worded;
    })
    .join('; ');
}
