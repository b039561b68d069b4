import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

/**
 * Usage limits (docs/architecture.md section 5.9) of API keys, and the copy of each user's own
 * limits identity publishes, as JSON text ('' limits nothing), on PostgreSQL and SQLite alike.
 */
export class RateLimits1733700000000 implements MigrationInterface {
  name = 'RateLimits1733700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('tokens', new TableColumn(columns.longText('rate_limits')));
    await runner.addColumn('accounts', new TableColumn(columns.longText('rate_limits')));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('accounts', 'rate_limits');
    await runner.dropColumn('tokens', 'rate_limits');
  }
}
