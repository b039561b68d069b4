import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

/**
 * `channel_info` (the established product's column): the key states of a channel with many keys
 * (domain/multi-key.ts), on PostgreSQL and SQLite alike. Existing channels hold one key: ''.
 */
export class ChannelInfo1733700000000 implements MigrationInterface {
  name = 'ChannelInfo1733700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('channels', new TableColumn(columns.longText('channel_info')));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('channels', 'channel_info');
  }
}
