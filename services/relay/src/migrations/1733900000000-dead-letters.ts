import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@aigw/platform';

/** Where relay keeps the events its consumers gave up on, for root to replay (`relay_dead_letters`, packages/platform/src/dead-letters/). */
export class RelayDeadLetters1733900000000 implements MigrationInterface {
  name = 'RelayDeadLetters1733900000000';

  async up(runner: QueryRunner): Promise<void> {
    await createDeadLetterTable(runner, 'relay');
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropDeadLetterTable(runner, 'relay');
  }
}
