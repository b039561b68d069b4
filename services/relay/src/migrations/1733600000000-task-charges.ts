import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

/**
 * The request ids whose charges a task carries (its submit, and a modal confirming it): a refund
 * gives back what billing recorded for them, never what the relay believed, so a relay that died
 * between storing a task and charging it cannot make a refund pay money never taken.
 */
export class RelayTaskCharges1733600000000 implements MigrationInterface {
  name = 'RelayTaskCharges1733600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('tasks', new TableColumn(columns.longText('charge_requests')));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('tasks', 'charge_requests');
  }
}
