import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@aigw/platform';

/** Where billing keeps the events its consumers gave up on, for root to replay (`billing_dead_letters`, packages/platform/src/dead-letters/). */
export class BillingDeadLetters1733900000000 implements MigrationInterface {
  name = 'BillingDeadLetters1733900000000';

  async up(runner: QueryRunner): Promise<void> {
    await createDeadLetterTable(runner, 'billing');
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropDeadLetterTable(runner, 'billing');
  }
}
