import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

/**
 * A key's deny list of client addresses, the custom text of its rate-limit refusals and the
 * Midjourney modes it may draw in (docs/architecture.md section 5.11), on PostgreSQL and SQLite
 * alike; '' everywhere means what a key had before: nothing denied, the default text, every mode.
 */
export class TokenGuards1734300000000 implements MigrationInterface {
  name = 'TokenGuards1734300000000';

  async up(runner: QueryRunner): Promise<void> {
    // One call: SQLite rebuilds the table once for all three.
    await runner.addColumns('tokens', [
      new TableColumn(columns.longText('deny_ips')),
      new TableColumn(columns.text('rate_limit_message', 255)),
      new TableColumn(columns.text('drawing_modes', 64)),
    ]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumns('tokens', ['drawing_modes', 'rate_limit_message', 'deny_ips']);
  }
}
