import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

/** A user's own usage limits as JSON text ('' limits nothing beyond the group's and the default), set by admins. */
export class UserRateLimits1733700000000 implements MigrationInterface {
  name = 'UserRateLimits1733700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('users', new TableColumn(columns.longText('rate_limits')));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('users', 'rate_limits');
  }
}
