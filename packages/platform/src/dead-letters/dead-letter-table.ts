import { Table, type QueryRunner } from 'typeorm';
import type { DeadLetterService } from '@aigw/contracts';
import { columns } from '../database/columns.js';
import { deadLetterTable } from './dead-letter.entity.js';

const { id, integer, bigint, text, longText } = columns;

/**
 * The dead-letter table as each service's migration `1733900000000-dead-letters.ts` creates it,
 * on PostgreSQL and SQLite alike. Applied migrations never run again: change the table with a new
 * migration, never here.
 */
export async function createDeadLetterTable(runner: QueryRunner, service: DeadLetterService): Promise<void> {
  const name = deadLetterTable(service);
  await runner.createTable(
    new Table({
      name,
      columns: [
        id(),
        text('event_id', 255, undefined),
        text('subject', 255, undefined),
        text('consumer', 255, undefined),
        text('pattern', 255, undefined),
        longText('payload'),
        text('time', 40, undefined),
        longText('error'),
        integer('attempts', 0),
        bigint('failed_at'),
        bigint('created_at'),
      ],
      indices: [
        // A consumer gives one event up once: a second time updates the row, and is not announced again.
        { name: `${name}_event`, columnNames: ['consumer', 'pattern', 'event_id'], isUnique: true },
      ],
    }),
  );
}

export async function dropDeadLetterTable(runner: QueryRunner, service: DeadLetterService): Promise<void> {
  await runner.dropTable(deadLetterTable(service));
}
