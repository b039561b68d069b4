import {
  decodeOptionValue,
  encodeOptionValue,
  isOptionKey,
  localizeMessage,
  optionDefinitions,
  type Locale,
  type OptionKey,
  type UpdateOptionBody,
} from '@aigw/contracts';

/** What a settings form holds for an option: switches get booleans, JSON gets indented text. */
export type FormValue = boolean | number | string | null | undefined;

/** Options whose URL loses its trailing slashes before it is saved (docs/product.md section 5). */
export const trailingSlashKeys: readonly OptionKey[] = ['ServerAddress', 'WorkerUrl', 'PayAddress', 'WeChatServerAddress', 'CustomCallbackAddress'];

/** The form value of `key` from its stored string (or its default when the server has no row). */
export function toFormValue(key: OptionKey, stored: string | undefined): FormValue {
  const definition = optionDefinitions[key];
  if (definition.secret) return '';
  const decoded = stored === undefined ? { ok: true as const, value: definition.default } : decodeOptionValue(key, stored);
  const value = decoded.ok ? decoded.value : stored;
  if (definition.kind === 'json') return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  if (definition.kind === 'boolean') return value === true || value === 'true';
  if (definition.kind === 'number') return typeof value === 'number' ? value : Number(value);
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value == null ? '' : JSON.stringify(value);
}

/** The wire string of a form value (what PUT /api/option/ receives). */
export function toWireValue(key: OptionKey, value: FormValue): string {
  const definition = optionDefinitions[key];
  if (definition.kind === 'json') {
    const text = String(value ?? '').trim();
    try {
      return JSON.stringify(JSON.parse(text));
    } catch {
      return text;
    }
  }
  if (value === null || value === undefined) return '';
  const text = encodeOptionValue(key, value);
  return trailingSlashKeys.includes(key) ? text.trim().replace(/\/+$/, '') : text;
}

/** The contracts' own check of a value (the server runs the same); a message in `locale` when it fails. */
export function checkOptionValue(key: OptionKey, value: FormValue, locale: Locale): string | undefined {
  if (optionDefinitions[key].kind === 'json') {
    try {
      JSON.parse(String(value ?? ''));
    } catch {
      return 'json';
    }
  }
  const decoded = decodeOptionValue(key, toWireValue(key, value));
  return decoded.ok ? undefined : localizeMessage(decoded.message, locale);
}

/** One PUT /api/option/ body as the settings cards send it: a known key and the value in its wire form (text). */
export interface OptionChange extends UpdateOptionBody {
  key: OptionKey;
  value: string;
}

/**
 * The changed options of a form: values whose wire form differs from the stored one. Secrets
 * are sent only when something was typed, since the server never shows their value.
 */
export function changedOptions(keys: readonly OptionKey[], values: Record<string, FormValue>, stored: Record<string, string>): OptionChange[] {
  return keys.flatMap((key) => {
    const definition = optionDefinitions[key];
    const value = values[key];
    if (definition.secret) return typeof value === 'string' && value !== '' ? [{ key, value }] : [];
    const wire = toWireValue(key, value);
    const before = toWireValue(key, toFormValue(key, stored[key]));
    return wire === before ? [] : [{ key, value: wire }];
  });
}

export function optionKey(name: string): OptionKey {
  if (!isOptionKey(name)) throw new Error(`unknown option ${name}`);
  return name;
}
