import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

const { id, integer, bigint, text } = columns;

/** Online top-up orders (docs/compatibility.md section 6), on PostgreSQL and SQLite alike. */
export class TopUps1732900000000 implements MigrationInterface {
  name = 'TopUps1732900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'top_ups',
        columns: [
          id(),
          integer('user_id'),
          bigint('amount'),
          text('money', 32, undefined),
          { ...text('trade_no', 64, undefined), isUnique: true },
          text('gateway_trade_no', 64),
          text('payment_method', 32, undefined),
          text('gateway', 16, undefined),
          text('status', 16, undefined),
          bigint('created_at'),
          bigint('completed_at', 0),
          integer('completed_by', 0),
        ],
        indices: [{ name: 'top_ups_user', columnNames: ['user_id', 'id'] }],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('top_ups');
  }
}
