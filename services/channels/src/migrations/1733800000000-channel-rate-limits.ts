import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

/** A channel's usage limits (JSON text, '' for none): routing skips a channel at its limit (docs/architecture.md section 5.9). */
export class ChannelRateLimits1733800000000 implements MigrationInterface {
  name = 'ChannelRateLimits1733800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('channels', new TableColumn(columns.longText('rate_limits')));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('channels', 'rate_limits');
  }
}
