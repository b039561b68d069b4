import type { DataSource } from 'typeorm';
import { createSilentLogger, openDatabase } from '@aigw/platform';
import { backends } from '@aigw/platform/testing';
import { OptionEntity } from '../../identity/src/entities/option.entity';
import { SessionEntity } from '../../identity/src/entities/session.entity';
import { UserEntity } from '../../identity/src/entities/user.entity';
import { identityMigrations } from '../../identity/src/migrations/index';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from './support/gateway';

/**
 * Issue 22.5: a username cannot pass for another user's. Names are NFKC-normalised, unique
 * regardless of case (the database enforces it), free of control, format and bidi characters,
 * and of one script; every path that creates or renames a user applies it, and existing names
 * stay as they are.
 */
describe.each(backends)('usernames that pass for another (%s)', (backend) => {
  let gateway: TestGateway;
  let db: DataSource;
  let root: Session;
  let admin: Session;
  let alice: Session;

  beforeAll(async () => {
    gateway = await startGateway(backend);
    db = await openDatabase({
      url: gateway.env.databaseUrl,
      dataDir: gateway.env.dataDir,
      schema: gateway.env.schema('identity'),
      entities: [UserEntity, SessionEntity, OptionEntity],
      migrations: identityMigrations,
      logger: createSilentLogger(),
    });
    root = await gateway.login('root', ROOT_PASSWORD);
    for (const name of ['admin1', 'alice']) expect((await gateway.register(name, `${name}-password`)).json().success).toBe(true);
    admin = await gateway.login('admin1', 'admin1-password');
    alice = await gateway.login('alice', 'alice-password');
    expect((await gateway.call('POST', '/api/user/manage', { session: root, body: { id: admin.id, action: 'promote' } })).json().success).toBe(true);
  });
  afterAll(async () => {
    await db?.destroy();
    await gateway?.close();
  });

  const usernames = async () => (await db.getRepository(UserEntity).find({ order: { id: 'ASC' } })).map((user) => user.username);
  /** A registration that asks for English answers (`gateway.register` sends no language: it answers in zh-CN). */
  const register = (username: string, password: string, language = 'en-US') =>
    gateway.call('POST', '/api/user/register', { body: { username, password, password2: password }, headers: { 'accept-language': language } });

  /** The look-alikes of "root" the issue lists, each with the reason the field error gives. */
  const lookAlikes: Array<[string, RegExp]> = [
    ['ROOT', /^username: already taken/],
    ['Root', /^username: already taken/],
    ['root\u200b', /^username: .*invisible/],
    ['r\u043eot', /^username: .*mixes scripts \(Cyrillic, Latin\)/],
    ['\u202etoor', /^username: .*invisible/],
    ['ro\u0000ot', /^username: .*control/],
    ['ｒｏｏｔ', /^username: already taken/],
  ];

  it('refuses look-alikes at registration with a field error that says why, writing nothing', async () => {
    const before = await usernames();
    for (const [name, reason] of lookAlikes) {
      const answer = (await register(name, 'lookalike-pass')).json();
      expect({ name, answer }).toEqual({ name, answer: { success: false, message: expect.stringMatching(reason) } });
    }
    // The same reasons in the caller's language.
    expect((await register('ROOT', 'lookalike-pass', 'zh-CN')).json()).toEqual({ success: false, message: 'username: 该用户名已被占用' });
    expect((await register('r\u043eot', 'lookalike-pass', 'zh-CN')).json()).toEqual({
      success: false,
      message: 'username: 混用了多种文字（Cyrillic, Latin），可能被误认为其他用户名；请只使用同一种文字的字母',
    });
    expect((await register('ro\u0000ot', 'lookalike-pass', 'zh-CN')).json()).toEqual({ success: false, message: 'username: 不能包含控制字符' });
    expect(await usernames()).toEqual(before);
  });

  it('stores a name NFKC-normalised, and then holds it regardless of case or width', async () => {
    expect((await gateway.register('ｃａｓｅｙ２', 'casey-password')).json()).toEqual({ success: true, message: '' });
    expect(await usernames()).toContain('casey2');
    expect((await gateway.login('casey2', 'casey-password')).id).toBeGreaterThan(0);
    for (const name of ['CASEY2', 'Casey2', 'ＣＡＳＥＹ２']) {
      expect((await register(name, 'casey-password')).json()).toMatchObject({
        success: false,
        message: expect.stringMatching(/^username: already taken/),
      });
    }
    // Scripts that are written together (Chinese with Latin) are one writing system, as are Greek or Cyrillic alone.
    for (const name of ['张三abc', 'Ελένη', 'иван']) expect((await gateway.register(name, 'writing-password')).json()).toEqual({ success: true, message: '' });
  });

  it('lets one of two registrations differing only in case win when they race, the database deciding', async () => {
    const answers = await Promise.all(['Racer', 'racer', 'RACER'].map((name) => register(name, 'racer-password')));
    expect(answers.map((answer) => answer.json().success).filter(Boolean)).toHaveLength(1);
    const losers = answers.map((answer) => answer.json()).filter((answer) => !answer.success);
    for (const loser of losers) expect(loser.message).toMatch(/^username: already taken/);
    expect((await usernames()).filter((name) => name.toLowerCase() === 'racer')).toHaveLength(1);
  });

  it('refuses look-alikes when an admin creates a user', async () => {
    for (const [name, reason] of lookAlikes) {
      const answer = (await gateway.call('POST', '/api/user/', { session: root, body: { username: name, password: 'created-pass' } })).json();
      expect({ name, answer }).toEqual({ name, answer: { success: false, message: expect.stringMatching(reason) } });
    }
    expect((await gateway.call('POST', '/api/user/', { session: root, body: { username: 'ＭＡＸ', password: 'created-pass' } })).json()).toEqual({
      success: true,
      message: '',
    });
    expect(await usernames()).toContain('MAX');
  });

  it('refuses look-alikes when a user renames themselves, keeping the name and the rest of the edit', async () => {
    for (const [name, reason] of lookAlikes) {
      const answer = (await gateway.call('PUT', '/api/user/self', { session: alice, body: { username: name, display_name: 'renamed' } })).json();
      expect({ name, answer }).toEqual({ name, answer: { success: false, message: expect.stringMatching(reason) } });
    }
    const renamed = await gateway.call('PUT', '/api/user/self', { session: alice, body: { username: 'root\u200b' }, headers: { 'accept-language': 'zh-CN' } });
    expect(renamed.json()).toEqual({
      success: false,
      message: 'username: 不能包含不可见的格式字符或文字方向控制字符（如零宽空格、从右到左覆盖符）',
    });
    expect(await db.getRepository(UserEntity).findOneByOrFail({ id: alice.id })).toMatchObject({ username: 'alice', display_name: 'alice' });
    // A change of case of one's own name is a rename to a name one already holds.
    expect((await gateway.call('PUT', '/api/user/self', { session: alice, body: { username: 'Alice' } })).json()).toEqual({ success: true, message: '' });
    expect((await gateway.call('PUT', '/api/user/self', { session: alice, body: { username: 'ａｌｉｃｅ' } })).json()).toEqual({ success: true, message: '' });
    expect(await db.getRepository(UserEntity).findOneByOrFail({ id: alice.id })).toMatchObject({ username: 'alice' });
  });

  it('refuses look-alikes when an admin renames a user', async () => {
    for (const [name, reason] of lookAlikes) {
      const answer = (await gateway.call('PUT', '/api/user/', { session: admin, body: { id: alice.id, username: name, display_name: 'renamed' } })).json();
      expect({ name, answer }).toEqual({ name, answer: { success: false, message: expect.stringMatching(reason) } });
    }
    expect(await db.getRepository(UserEntity).findOneByOrFail({ id: alice.id })).toMatchObject({ username: 'alice', display_name: 'alice' });
  });

  it('leaves existing names alone: a profile saved with its unchanged name goes through', async () => {
    // A name from before the rules (written straight to the table, as an upgrade keeps it).
    const legacy = 'leg\u200bacy';
    await db.getRepository(UserEntity).update({ id: alice.id }, { username: legacy });
    expect((await gateway.call('PUT', '/api/user/self', { session: alice, body: { username: legacy, display_name: 'Alice A' } })).json()).toEqual({
      success: true,
      message: '',
    });
    expect((await gateway.call('PUT', '/api/user/', { session: admin, body: { id: alice.id, username: legacy, display_name: 'Alice B' } })).json()).toEqual({
      success: true,
      message: '',
    });
    expect(await db.getRepository(UserEntity).findOneByOrFail({ id: alice.id })).toMatchObject({ username: legacy, display_name: 'Alice B' });
    await db.getRepository(UserEntity).update({ id: alice.id }, { username: 'alice' });
  });
});
