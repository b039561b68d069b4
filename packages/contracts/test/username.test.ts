import { localizeMessage } from '../src/messages';
import { normalizeUsername, usernameKey, usernameProblem } from '../src/username';

/** Issue 22.5: the rules a new or changed username is held to, one row per kind of look-alike. */
describe('username rules', () => {
  it.each([
    ['root', null],
    ['张三abc', null],
    ['やまだTaro', null],
    ['김철수kim', null],
    ['Ελένη', null],
    ['иван_2', null],
    ['user name', null],
    ['r\u043eot', /mixes scripts \(Cyrillic, Latin\)/],
    ['r\u03bfot', /mixes scripts \(Greek, Latin\)/],
    ['иванJohn', /mixes scripts/],
    ['root\u200b', /invisible formatting/],
    ['\u202etoor', /invisible formatting/],
    ['ro\u2066ot', /invisible formatting/],
    ['ro\u00adot', /invisible formatting/],
    ['ro\u0000ot', /control/],
    ['ro\u0007ot', /control/],
    ['ro\u2028ot', /line-separator/],
    ['ro\ue000ot', /private-use/],
    ['ro\u1680ot', /spaces/],
  ])('%j: %p', (name, problem) => {
    const found = usernameProblem(normalizeUsername(name));
    if (problem === null) expect(found).toBeNull();
    else expect(localizeMessage(found ?? '', 'en-US')).toMatch(problem);
  });

  it("says why in the caller's language", () => {
    const mixed = usernameProblem('r\u043eot') ?? '';
    expect(localizeMessage(mixed, 'en-US')).toBe('mixes scripts (Cyrillic, Latin), so it could pass for another name; use the letters of one script');
    expect(localizeMessage(mixed, 'zh-CN')).toBe('混用了多种文字（Cyrillic, Latin），可能被误认为其他用户名；请只使用同一种文字的字母');
    expect(localizeMessage(usernameProblem('ro\u0000ot') ?? '', 'zh-CN')).toBe('不能包含控制字符');
  });

  it('normalises width and compatibility forms (NFKC), and keys names regardless of case', () => {
    expect(normalizeUsername('ｒｏｏｔ２')).toBe('root2');
    expect(normalizeUsername(' ﬁle ')).toBe('file');
    for (const spelling of ['ROOT', 'Root', 'ｒｏｏｔ', 'ＲＯＯＴ']) expect(usernameKey(spelling)).toBe(usernameKey('root'));
    expect(usernameKey('STRASSE')).toBe(usernameKey('straße'));
    expect(usernameKey('rooт')).not.toBe(usernameKey('root'));
  });
});
