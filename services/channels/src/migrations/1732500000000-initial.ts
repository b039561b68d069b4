import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

const { id, integer, bigint, text, longText } = columns;

/** Channels and the abilities routing index, on PostgreSQL and SQLite alike. */
export class ChannelsInitial1732500000000 implements MigrationInterface {
  name = 'ChannelsInitial1732500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'channels',
        columns: [
          id(),
          integer('type'),
          text('name', 128, undefined),
          integer('status', 1),
          { name: 'key_encrypted', type: 'text', isNullable: false },
          text('key_hash', 64, undefined),
          text('group', 1024, "'default'"),
          longText('models'),
          text('base_url', 2048),
          longText('other'),
          longText('model_mapping'),
          longText('status_code_mapping'),
          longText('param_override'),
          longText('setting'),
          text('test_model', 128),
          integer('auto_ban', 1),
          text('tag', 64),
          integer('priority', 0),
          integer('weight', 0),
          text('openai_organization', 128),
          integer('response_time', 0),
          { name: 'balance', type: 'double precision', isNullable: false, default: 0 },
          bigint('balance_updated_time', 0),
          bigint('used_quota', 0),
          bigint('created_time'),
          bigint('test_time', 0),
          longText('other_info'),
          integer('version', 1),
        ],
        indices: [
          // Exact key search, tag operations, and the "delete disabled" / "test all" sweeps.
          { name: 'channels_key_hash', columnNames: ['key_hash'] },
          { name: 'channels_tag', columnNames: ['tag'] },
          { name: 'channels_status', columnNames: ['status'] },
        ],
      }),
    );

    await runner.createTable(
      new Table({
        name: 'abilities',
        columns: [
          { ...text('group', 64, undefined), isPrimary: true },
          { ...text('model', 255, undefined), isPrimary: true },
          { name: 'channel_id', type: 'integer', isPrimary: true },
          { name: 'enabled', type: 'boolean', isNullable: false, default: true },
          integer('priority', 0),
          integer('weight', 0),
          text('tag', 64),
        ],
      }),
    );
    // The primary key (group, model, channel_id) already serves lookups by (group, model); these
    // serve "models of a group that are enabled" and the per-channel rebuild.
    await runner.createIndex('abilities', new TableIndex({ name: 'abilities_group_enabled_model', columnNames: ['group', 'enabled', 'model'] }));
    await runner.createIndex('abilities', new TableIndex({ name: 'abilities_channel', columnNames: ['channel_id'] }));
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ['abilities', 'channels']) await runner.dropTable(table);
  }
}
