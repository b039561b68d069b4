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
    else expect(found).toMatch(problem);
  });

  it('normalises width and compatibility forms (NFKC), and keys names regardless of case', () => {
    expect(normalizeUsername('ｒｏｏｔ２')).toBe('root2');
    expect(normalizeUsername(' ﬁle ')).toBe('file');
    for (const spelling of ['ROOT', 'Root', 'ｒｏｏｔ', 'ＲＯＯＴ']) expect(usernameKey(spelling)).toBe(usernameKey('root'));
    expect(usernameKey('STRASSE')).toBe(usernameKey('straße'));
    expect(usernameKey('rooт')).not.toBe(usernameKey('root'));
  });
});
