import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { columns } from '@aigw/platform';

const { integer, bigint, text, longText } = columns;

/** Requests forwarded but not reported yet (`relay.request.started`), on PostgreSQL and SQLite alike. */
export class PendingRequests1733000000000 implements MigrationInterface {
  name = 'PendingRequests1733000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.createTable(
      new Table({
        name: 'pending_requests',
        columns: [
          { ...text('request_id', 64, undefined), isPrimary: true },
          integer('user_id'),
          text('owner', 200, undefined),
          bigint('expires_at'),
          bigint('owner_missing_since', 0),
          longText('record'),
          bigint('created_at'),
        ],
        indices: [{ name: 'pending_requests_created', columnNames: ['created_at'] }],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('pending_requests');
  }
}
