import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

const { id, integer, bigint, text, longText } = columns;

/** Delivery records of mails and webhook calls, on PostgreSQL and SQLite alike. */
export class NotifierDeliveries1732600000000 implements MigrationInterface {
  name = 'NotifierDeliveries1732600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'deliveries',
        columns: [
          id(),
          text('kind', 16, undefined),
          text('target', 2048, undefined),
          text('topic', 128, undefined),
          text('dedupe_key', 128, undefined),
          integer('webhook_id', 0),
          longText('payload'),
          text('status', 16, "'pending'"),
          integer('attempts', 0),
          longText('last_error'),
          integer('response_status', 0),
          bigint('created_at'),
          bigint('updated_at'),
        ],
        indices: [
          // A redelivered event or a repeated request finds the delivery it already made.
          { name: 'deliveries_cause', columnNames: ['kind', 'dedupe_key', 'target'], isUnique: true },
          // Root's list: newest first, filtered by kind and status.
          { name: 'deliveries_status', columnNames: ['status', 'id'] },
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('deliveries');
  }
}
