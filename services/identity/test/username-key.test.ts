import type { DataSource } from 'typeorm';
import { createSilentLogger, isUniqueViolation, openDatabase } from '@aigw/platform';
import { backends, createTestEnvironment, type TestEnvironment } from '@aigw/platform/testing';
import { UserEntity } from '../src/entities/user.entity';
import { identityMigrations } from '../src/migrations/index';
import { UsernameKey1733300000000 } from '../src/migrations/1733300000000-username-key';
import { usernameTaken } from '../src/users';

/**
 * Issue 22.5: the migration that makes usernames unique regardless of case keys the rows an
 * upgrade finds, and does not break on names that already clash by case.
 */
describe.each(backends)('the username key migration (%s)', (backend) => {
  let env: TestEnvironment;
  let db: DataSource | undefined;

  const open = (migrations: typeof identityMigrations, entities: Array<typeof UserEntity> = [UserEntity]) =>
    openDatabase({
      url: env.databaseUrl,
      dataDir: env.dataDir,
      schema: env.schema('identity'),
      entities,
      migrations,
      logger: createSilentLogger(),
    });

  beforeAll(async () => {
    env = await createTestEnvironment(backend);
  });
  afterAll(async () => {
    await db?.destroy();
    await env?.cleanup();
  });

  it('keys existing rows in id order, leaves later clashes by case null, and the database then refuses a clash', async () => {
    // The tables as the previous release left them, with names from before the rules.
    const before = await open(
      identityMigrations.filter((migration) => migration !== UsernameKey1733300000000),
      [],
    );
    const names = ['Bob', 'alice', 'bob', 'BOB', 'ｂｏｂ', 'leg\u200bacy'];
    for (const [index, username] of names.entries()) {
      await before
        .createQueryBuilder()
        .insert()
        .into('users')
        .values({ username, password_hash: 'x', aff_code: `code${index}`, created_at: Date.now() })
        .execute();
    }
    await before.destroy();

    db = await open(identityMigrations);
    const rows = await db.getRepository(UserEntity).find({ order: { id: 'ASC' } });
    expect(rows.map((row) => [row.username, row.username_key])).toEqual([
      ['Bob', 'bob'],
      ['alice', 'alice'],
      ['bob', null],
      ['BOB', null],
      ['ｂｏｂ', null],
      ['leg\u200bacy', 'leg\u200bacy'],
    ]);

    // Every spelling stays held, the unkeyed ones included.
    for (const name of ['bob', 'BoB', 'ALICE']) expect(await usernameTaken(db.manager, name)).toBe(true);
    expect(await usernameTaken(db.manager, 'carol')).toBe(false);
    // A user's own name is not taken from them.
    expect(await usernameTaken(db.manager, 'Alice', rows[1]!.id)).toBe(false);

    // The database itself refuses a second row with a held key.
    const clash = await db
      .createQueryBuilder()
      .insert()
      .into('users')
      .values({ username: 'ALICE', username_key: 'alice', password_hash: 'x', aff_code: 'clash', created_at: Date.now() })
      .execute()
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(isUniqueViolation(clash)).toBe(true);
  });
});
