import { msg } from './messages/index.js';

/**
 * Usernames that cannot pass for another user's (issue 22.5). A new or changed name is
 * NFKC-normalised (full-width and compatibility forms become their plain letters), free of
 * control, format (zero-width, bidi override) and other invisible or unassigned characters, and
 * written in one script: mixed-script look-alikes such as "r\u043eot" (a Cyrillic o) are refused.
 * Scripts that are written together count as one, as UTS #39's "highly restrictive" level has
 * it: Latin with Han and Japanese kana, with Han and Bopomofo, or with Han and Hangul.
 * Uniqueness is by `usernameKey` (case-folded), which identity stores in a unique column.
 */

/** ISO 15924 codes of the scripts a letter can belong to (Common, Inherited and Unknown are not among them). */
// prettier-ignore
const SCRIPT_CODES = [
  'Adlm', 'Aghb', 'Ahom', 'Arab', 'Armi', 'Armn', 'Avst', 'Bali', 'Bamu', 'Bass', 'Batk', 'Beng', 'Berf', 'Bhks', 'Bopo', 'Brah', 'Brai',
  'Bugi', 'Buhd', 'Cakm', 'Cans', 'Cari', 'Cham', 'Cher', 'Chrs', 'Copt', 'Cpmn', 'Cprt', 'Cyrl', 'Deva', 'Diak', 'Dogr', 'Dsrt', 'Dupl',
  'Egyp', 'Elba', 'Elym', 'Ethi', 'Gara', 'Geor', 'Glag', 'Gong', 'Gonm', 'Goth', 'Gran', 'Grek', 'Gujr', 'Gukh', 'Guru', 'Hang', 'Hani',
  'Hano', 'Hatr', 'Hebr', 'Hira', 'Hluw', 'Hmng', 'Hmnp', 'Hung', 'Ital', 'Java', 'Kali', 'Kana', 'Kawi', 'Khar', 'Khmr', 'Khoj', 'Kits',
  'Knda', 'Krai', 'Kthi', 'Lana', 'Laoo', 'Latn', 'Lepc', 'Limb', 'Lina', 'Linb', 'Lisu', 'Lyci', 'Lydi', 'Mahj', 'Maka', 'Mand', 'Mani',
  'Marc', 'Medf', 'Mend', 'Merc', 'Mero', 'Miao', 'Mlym', 'Modi', 'Mong', 'Mroo', 'Mtei', 'Mult', 'Mymr', 'Nagm', 'Nand', 'Narb', 'Nbat',
  'Newa', 'Nkoo', 'Nshu', 'Ogam', 'Olck', 'Onao', 'Orkh', 'Orya', 'Osge', 'Osma', 'Ougr', 'Palm', 'Pauc', 'Perm', 'Phag', 'Phli', 'Phlp',
  'Phnx', 'Plrd', 'Prti', 'Rjng', 'Rohg', 'Runr', 'Samr', 'Sarb', 'Saur', 'Sgnw', 'Shaw', 'Shrd', 'Sidd', 'Sidt', 'Sind', 'Sinh', 'Sogd',
  'Sogo', 'Sora', 'Soyo', 'Sund', 'Sunu', 'Sylo', 'Syrc', 'Tagb', 'Takr', 'Tale', 'Talu', 'Taml', 'Tang', 'Tavt', 'Tayo', 'Telu', 'Tfng',
  'Tglg', 'Thaa', 'Thai', 'Tibt', 'Tirh', 'Tnsa', 'Todr', 'Tols', 'Toto', 'Tutg', 'Ugar', 'Vaii', 'Vith', 'Wara', 'Wcho', 'Xpeo', 'Xsux',
  'Yezi', 'Yiii', 'Zanb',
] as const;

/** Readable names of the scripts a refusal is likely to name. */
const SCRIPT_NAMES: Record<string, string> = {
  Latn: 'Latin',
  Cyrl: 'Cyrillic',
  Grek: 'Greek',
  Armn: 'Armenian',
  Hebr: 'Hebrew',
  Arab: 'Arabic',
  Hani: 'Han',
  Hira: 'Hiragana',
  Kana: 'Katakana',
  Hang: 'Hangul',
  Bopo: 'Bopomofo',
  Thai: 'Thai',
  Deva: 'Devanagari',
  Geor: 'Georgian',
  Cher: 'Cherokee',
  Copt: 'Coptic',
};

/** One matcher per script the running engine knows (an engine older than the list skips the newest scripts). */
const scriptMatchers: Array<[string, RegExp]> = SCRIPT_CODES.flatMap((code) => {
  try {
    return [[code, new RegExp(`^\\p{Script=${code}}$`, 'u')] as [string, RegExp]];
  } catch {
    return [];
  }
});

/** Script sets written together (UTS #39 highly restrictive): a name's scripts may all fall in one of these. */
const WRITTEN_TOGETHER = [new Set(['Latn', 'Hani', 'Hira', 'Kana']), new Set(['Latn', 'Hani', 'Bopo']), new Set(['Latn', 'Hani', 'Hang'])];

const CONTROL = /\p{Cc}/u;
/** Format characters: zero-width spaces and joiners, bidi embeddings, overrides, isolates and marks, soft hyphens. */
const FORMAT = /\p{Cf}/u;
/** Surrogates, private use, unassigned code points, and line or paragraph separators. */
const OTHER_INVISIBLE = /[\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;
/** Spaces other than the plain one (NFKC already maps most of them to it). */
const ODD_SPACE = /[^\P{Zs} ]/u;

/** A name in its stored form: NFKC, trimmed. */
export function normalizeUsername(name: string): string {
  return name.normalize('NFKC').trim();
}

/**
 * The key a name is unique by: NFKC and case-folded, so "ROOT", "Root" and full-width "ｒｏｏｔ"
 * all hold the same key as "root".
 */
export function usernameKey(name: string): string {
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC').trim();
}

function scriptOf(character: string): string | null {
  for (const [code, matcher] of scriptMatchers) if (matcher.test(character)) return code;
  return null; // Common (digits, punctuation, symbols) or Inherited (combining marks): no script of its own.
}

/** The scripts of a name's letters, in order of appearance (Common and Inherited characters left out). */
export function usernameScripts(name: string): string[] {
  const scripts = new Set<string>();
  for (const character of name) {
    const script = scriptOf(character);
    if (script) scripts.add(script);
  }
  return [...scripts];
}

/**
 * Why a (normalised) name cannot be taken, as the rest of a field error after "username: " (a
 * catalogue message, `msg`), or null when it can. Length and emptiness are the schema's to check.
 */
export function usernameProblem(name: string): string | null {
  if (CONTROL.test(name)) return msg('username.control_characters');
  if (FORMAT.test(name)) return msg('username.format_characters');
  if (OTHER_INVISIBLE.test(name)) return msg('username.invisible_characters');
  if (ODD_SPACE.test(name)) return msg('username.odd_spaces');
  const scripts = usernameScripts(name);
  if (scripts.length > 1 && !WRITTEN_TOGETHER.some((together) => scripts.every((script) => together.has(script)))) {
    const names = scripts.map((script) => SCRIPT_NAMES[script] ?? script).sort();
    return msg('username.mixed_scripts', { scripts: names.join(', ') });
  }
  return null;
}
