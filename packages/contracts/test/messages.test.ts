import { localizeMessage, messageCatalogues, msg, requestLocale, serverMessageTemplates } from '../src/index';

const placeholders = (template: string) => [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe('server messages', () => {
  it('has every message in zh-CN and en-US, with the same parameters', () => {
    for (const [id, templates] of Object.entries(serverMessageTemplates)) {
      expect([id, Object.keys(templates).sort()]).toEqual([id, ['en-US', 'zh-CN']]);
      expect([id, placeholders(templates['zh-CN'])]).toEqual([id, placeholders(templates['en-US'])]);
      expect([id, /[\u4e00-\u9fff]/.test(templates['zh-CN'])]).toEqual([id, true]);
      expect([id, /[\u4e00-\u9fff]/.test(templates['en-US'])]).toEqual([id, false]);
    }
  });

  it('keeps each id in one catalogue', () => {
    const ids = messageCatalogues.flatMap((catalogue) => Object.keys(catalogue));
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  it("words a message in the caller's language, its parameters filled in, inside other text too", () => {
    const minimum = msg('transfer.minimum', { minimum: '$1.00' });
    expect(localizeMessage(minimum, 'en-US')).toBe('quota: minimum transfer amount is $1.00');
    expect(localizeMessage(minimum, 'zh-CN')).toBe('quota：最小划转额度为 $1.00');
    expect(localizeMessage(`ids: ${msg('channels.select_to_tag')}`, 'en-US')).toBe('ids: select the channels to tag first');
    expect(localizeMessage('a sentence of its own', 'zh-CN')).toBe('a sentence of its own');
    expect(localizeMessage('msg:no.such.message;', 'en-US')).toBe('msg:no.such.message;');
    // A token ends at its `;`: text after it stays, and parameters may hold any character.
    expect(localizeMessage(`name: ${msg('channels.select_to_tag')}.`, 'en-US')).toBe('name: select the channels to tag first.');
    expect(localizeMessage(msg('transfer.minimum', { minimum: '{a; "b"} %7B' }), 'en-US')).toBe('quota: minimum transfer amount is {a; "b"} %7B');
    expect([requestLocale('en-US,en;q=0.9'), requestLocale(undefined), requestLocale('zh-CN'), requestLocale(['en']), requestLocale('', 'en-US')]).toEqual([
      'en-US',
      'zh-CN',
      'zh-CN',
      'en-US',
      'en-US',
    ]);
    // The first language it knows; none known (`*`, as Node's fetch sends): the fallback.
    expect([requestLocale('fr-FR,en;q=0.8'), requestLocale('*', 'en-US'), requestLocale('*'), requestLocale('de', 'en-US')]).toEqual([
      'en-US',
      'en-US',
      'zh-CN',
      'en-US',
    ]);
  });
});
