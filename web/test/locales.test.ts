import fs from 'node:fs';
import path from 'node:path';
import { localeMessages } from '../src/locales';

const zh = localeMessages['zh-CN'];
const en = localeMessages['en-US'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'locales' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

const idPrefixes = ['pages', 'layout', 'common', 'errors', 'role', 'userStatus', 'wechat'];

/** Every message id the code names: any quoted literal that starts like an id (`'pages.users.title'`). */
function idsUsedInCode(): Map<string, string> {
  const used = new Map<string, string>();
  const pattern = new RegExp(`['"]((?:${idPrefixes.join('|')})\\.[\\w-]+(?:\\.[\\w-]+)*)['"]`, 'g');
  for (const file of sourceFiles(path.join(__dirname, '..', 'src'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(pattern)) used.set(match[1]!, path.relative(path.join(__dirname, '..'), file));
  }
  return used;
}

/** Pairs of id and defaultMessage written in the code: `{ id: 'x', defaultMessage: 'y' }` and `t('x', 'y')`. */
function defaultsInCode(text: string): Array<[string, string]> {
  const pairs = [
    ...text.matchAll(/\bid:\s*'([^']+)',\s*defaultMessage:\s*'((?:[^'\\]|\\.)*)'/g),
    ...text.matchAll(/\b\w+\(\s*'((?:pages|layout|common|errors)\.[^']+)',\s*'((?:[^'\\]|\\.)*)'/g),
  ];
  return pairs.map((match) => [match[1]!, match[2]!.replace(/\\'/g, "'")]);
}

describe('locales', () => {
  it('zh-CN and en-US have the same keys', () => {
    const onlyZh = Object.keys(zh).filter((key) => !(key in en));
    const onlyEn = Object.keys(en).filter((key) => !(key in zh));
    expect({ onlyZh, onlyEn }).toEqual({ onlyZh: [], onlyEn: [] });
  });

  it('has no empty messages', () => {
    const empty = [...Object.entries(zh), ...Object.entries(en)].filter(([, text]) => text.trim() === '').map(([key]) => key);
    expect(empty).toEqual([]);
  });

  it('defines every message id the code uses, in both languages', () => {
    const used = idsUsedInCode();
    expect(used.size).toBeGreaterThan(50);
    const missing = [...used].filter(([id]) => !(id in zh) || !(id in en)).map(([id, file]) => `${id} (${file})`);
    expect(missing).toEqual([]);
  });

  it('gives each descriptor the zh-CN text as its defaultMessage', () => {
    const drift: string[] = [];
    for (const file of sourceFiles(path.join(__dirname, '..', 'src'))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const [id, defaultMessage] of defaultsInCode(text)) {
        if (id in zh && zh[id] !== defaultMessage) drift.push(`${id}: '${defaultMessage}' vs '${zh[id]}'`);
      }
    }
    expect(drift).toEqual([]);
  });

  it('uses dotted, semantic ids', () => {
    const bad = Object.keys(zh).filter((key) => !/^[a-z][a-zA-Z0-9]*(\.[a-zA-Z0-9-]+)+$/.test(key));
    expect(bad).toEqual([]);
  });
});
