import type { Locale } from '../locale.js';

/** Messages by id, each in every language of the console; `{name}` marks a parameter. */
export type Catalogue = Record<string, Record<Locale, string>>;
