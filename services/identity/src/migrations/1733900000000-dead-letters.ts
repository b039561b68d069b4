import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@aigw/platform';

/** Where identity keeps the events its consumers gave up on, for root to replay (`identity_dead_letters`, packages/platform/src/dead-letters/). */
export class IdentityDeadLetters1733900000000 implements MigrationInterface {
  name = 'IdentityDeadLetters1733900000000';

  async up(runner: QueryRunner): Promise<void> {
    await createDeadLetterTable(runner, 'identity');
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropDeadLetterTable(runner, 'identity');
  }
}
