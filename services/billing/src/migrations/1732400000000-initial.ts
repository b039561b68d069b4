import { Table, TableIndex, TableUnique, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

const { id, integer, bigint, text, longText, flag } = columns;

/** Accounts, ledger, tokens, redemptions, logs and hourly aggregates, on PostgreSQL and SQLite alike. */
export class BillingInitial1732400000000 implements MigrationInterface {
  name = 'BillingInitial1732400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'accounts',
        columns: [
          { name: 'user_id', type: 'integer', isPrimary: true },
          text('username', 64),
          text('group', 64, "'default'"),
          integer('status', 1),
          bigint('quota', 0),
          bigint('used_quota', 0),
          integer('request_count', 0),
          integer('aff_count', 0),
          bigint('aff_quota', 0),
          bigint('aff_history_quota', 0),
          bigint('created_at'),
        ],
      }),
    );

    await runner.createTable(
      new Table({
        name: 'ledger_entries',
        columns: [
          id(),
          integer('user_id'),
          text('kind', 16, undefined),
          bigint('amount'),
          { name: 'request_id', type: 'varchar', length: '64', isNullable: true, isUnique: true },
          bigint('created_at'),
        ],
        indices: [{ name: 'ledger_user', columnNames: ['user_id'] }],
      }),
    );

    await runner.createTable(
      new Table({
        name: 'tokens',
        columns: [
          id(),
          integer('user_id'),
          text('name', 64, undefined),
          { ...text('key_hash', 64, undefined), isUnique: true },
          text('key_prefix', 16, undefined),
          longText('key_encrypted'),
          integer('status', 1),
          bigint('created_time'),
          bigint('accessed_time', 0),
          bigint('expired_time', -1),
          bigint('remain_quota', 0),
          flag('unlimited_quota'),
          bigint('used_quota', 0),
          flag('model_limits_enabled'),
          longText('model_limits'),
          longText('allow_ips'),
          text('group', 64),
        ],
        indices: [{ name: 'tokens_user', columnNames: ['user_id', 'id'] }],
      }),
    );

    await runner.createTable(
      new Table({
        name: 'redemptions',
        columns: [
          id(),
          integer('user_id'),
          text('name', 32, undefined),
          { ...text('key', 32, undefined), isUnique: true },
          integer('status', 1),
          bigint('quota'),
          bigint('created_time'),
          bigint('redeemed_time', 0),
          integer('used_user_id', 0),
        ],
      }),
    );

    await runner.createTable(
      new Table({
        name: 'logs',
        columns: [
          id(),
          { name: 'request_id', type: 'varchar', length: '64', isNullable: true, isUnique: true },
          integer('user_id'),
          text('username', 64),
          bigint('created_at'),
          integer('type'),
          longText('content'),
          integer('token_id', 0),
          text('token_name', 64),
          text('model_name', 128),
          bigint('quota', 0),
          integer('prompt_tokens', 0),
          integer('completion_tokens', 0),
          integer('use_time', 0),
          flag('is_stream'),
          integer('channel_id', 0),
          text('group', 64),
          longText('other'),
        ],
      }),
    );
    // The console filters by time first, then by one of these; each index ends in created_at so
    // a filtered page is an index range scan even at tens of millions of rows.
    for (const columns of [
      ['created_at'],
      ['user_id', 'created_at'],
      ['type', 'created_at'],
      ['username', 'created_at'],
      ['token_name', 'created_at'],
      ['model_name', 'created_at'],
      ['channel_id', 'created_at'],
      ['group', 'created_at'],
    ]) {
      await runner.createIndex('logs', new TableIndex({ name: `logs_${columns.join('_')}`, columnNames: columns }));
    }

    await runner.createTable(
      new Table({
        name: 'quota_data',
        columns: [
          id(),
          integer('user_id'),
          text('username', 64),
          text('model_name', 128, undefined),
          bigint('created_at'),
          integer('count', 0),
          bigint('quota', 0),
          bigint('token_used', 0),
        ],
        uniques: [new TableUnique({ name: 'quota_data_user_model_hour', columnNames: ['user_id', 'model_name', 'created_at'] })],
        indices: [{ name: 'quota_data_hour', columnNames: ['created_at'] }],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['quota_data', 'logs', 'redemptions', 'tokens', 'ledger_entries', 'accounts']) await runner.dropTable(table);
  }
}
