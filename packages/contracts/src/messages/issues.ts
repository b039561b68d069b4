import { hasMessage, msg, type MessageId } from './index.js';

/** What a zod issue carries beyond its message (zod 4's issue fields, by code). */
export interface ZodIssueFields {
  code?: string;
  expected?: string;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  format?: string;
  values?: unknown[];
  keys?: string[];
  divisor?: number;
  message?: string;
}

const typeMessages: Record<string, MessageId> = {
  string: 'validation.type_string',
  number: 'validation.type_number',
  int: 'validation.integer',
  boolean: 'validation.type_boolean',
  object: 'validation.type_object',
  array: 'validation.type_array',
};

const formatMessages: Record<string, MessageId> = { email: 'validation.email', url: 'validation.url' };

/**
 * A failed check in the catalogue's words: the schema's own message when it names one (`msg(id)`),
 * else zod's issue by its code. zod's English defaults never reach a console user.
 */
export function issueMessage(issue: ZodIssueFields): string {
  if (issue.message && hasMessage(issue.message)) return issue.message;
  const bound = (value: number | bigint | undefined) => String(value ?? '');
  switch (issue.code) {
    case 'invalid_type':
      // not a console message: zod's own words, which say so of a field the body lacks.
      if (issue.message?.endsWith('received undefined')) return msg('validation.required');
      return msg(typeMessages[issue.expected ?? ''] ?? 'validation.invalid');
    case 'too_small':
      if (issue.origin === 'string') return msg(issue.minimum === 1 ? 'validation.string_empty' : 'validation.string_min', { minimum: bound(issue.minimum) });
      if (issue.origin === 'array' || issue.origin === 'set') {
        return issue.minimum === 1 ? msg('validation.string_empty') : msg('validation.items_min', { minimum: bound(issue.minimum) });
      }
      return msg(issue.inclusive === false ? 'validation.number_above' : 'validation.number_min', { minimum: bound(issue.minimum) });
    case 'too_big':
      if (issue.origin === 'string') return msg('validation.string_max', { maximum: bound(issue.maximum) });
      if (issue.origin === 'array' || issue.origin === 'set') return msg('validation.items_max', { maximum: bound(issue.maximum) });
      return msg(issue.inclusive === false ? 'validation.number_below' : 'validation.number_max', { maximum: bound(issue.maximum) });
    case 'invalid_format':
      return msg(formatMessages[issue.format ?? ''] ?? 'validation.format');
    case 'invalid_value':
      return msg('validation.one_of', { values: (issue.values ?? []).map(String).join(', ') });
    case 'unrecognized_keys':
      return msg('validation.unknown_fields', { keys: (issue.keys ?? []).join(', ') });
    case 'not_multiple_of':
      return msg(issue.divisor === 1 ? 'validation.integer' : 'validation.multiple_of', { divisor: String(issue.divisor ?? '') });
    default:
      return msg('validation.invalid');
  }
}
