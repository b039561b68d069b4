import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Users, sessions and options. Written with the QueryRunner API so it runs on PostgreSQL and SQLite. */
export class Initial1732300000000 implements MigrationInterface {
  name = 'Initial1732300000000';

  async up(runner: QueryRunner): Promise<void> {
    const text = (name: string, length = 64, fallback: string | undefined = "''") => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: false,
      default: fallback,
    });
    const integer = (name: string, fallback: number) => ({ name, type: 'integer', isNullable: false, default: fallback });
    await runner.createTable(
      new Table({
        name: 'users',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { ...text('username', 64, undefined), isUnique: true },
          text('display_name'),
          text('password_hash', 255, undefined),
          { name: 'password_is_default', type: 'boolean', isNullable: false, default: false },
          text('email'),
          text('github_id'),
          text('wechat_id'),
          text('telegram_id'),
          text('linux_do_id'),
          integer('role', 1),
          integer('status', 1),
          text('group', 64, "'default'"),
          { ...text('aff_code', 32, undefined), isUnique: true },
          integer('inviter_id', 0),
          { name: 'access_token_hash', type: 'varchar', length: '64', isNullable: true, isUnique: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'deleted_at', type: 'bigint', isNullable: true },
        ],
      }),
    );
    // Emails are unique among users who have one, deregistered users included.
    await runner.createIndex('users', new TableIndex({ name: 'users_email_unique', columnNames: ['email'], isUnique: true, where: "email <> ''" }));
    await runner.createIndex('users', new TableIndex({ name: 'users_group', columnNames: ['group'] }));

    await runner.createTable(
      new Table({
        name: 'sessions',
        columns: [
          { name: 'id_hash', type: 'varchar', length: '64', isPrimary: true },
          { name: 'user_id', type: 'integer', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'expires_at', type: 'bigint', isNullable: false },
        ],
      }),
    );
    await runner.createIndex('sessions', new TableIndex({ name: 'sessions_user', columnNames: ['user_id'] }));

    await runner.createTable(
      new Table({
        name: 'options',
        columns: [
          { name: 'key', type: 'varchar', length: '128', isPrimary: true },
          { name: 'value', type: 'text', isNullable: false },
          { name: 'version', type: 'integer', isNullable: false },
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('options');
    await runner.dropTable('sessions');
    await runner.dropTable('users');
  }
}
