import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@aigw/platform';

/** Where notifier keeps the events its consumers gave up on, for root to replay (`notifier_dead_letters`, packages/platform/src/dead-letters/). */
export class NotifierDeadLetters1733900000000 implements MigrationInterface {
  name = 'NotifierDeadLetters1733900000000';

  async up(runner: QueryRunner): Promise<void> {
    await createDeadLetterTable(runner, 'notifier');
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropDeadLetterTable(runner, 'notifier');
  }
}
