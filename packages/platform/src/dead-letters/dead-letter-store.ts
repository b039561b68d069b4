import { MoreThan, type DataSource, type Repository } from 'typeorm';
import type { DeadLetterService } from '@aigw/contracts';
import type { DeadLetter } from '../bus/bus.js';
import { isUniqueViolation } from '../database/data-source.js';
import { deadLetterEntities, type DeadLetterRow } from './dead-letter.entity.js';

/** The dead letters of one service, in its own database. */
export interface DeadLetterStore {
  /**
   * Keeps a given-up event. `created` is false when the consumer had given this very event up
   * before (a redelivery after a crash): the row then carries the new failure.
   */
  record(letter: DeadLetter): Promise<{ row: DeadLetterRow; created: boolean }>;
  /** Oldest first (the order a replay of all takes); `page` is 1-based. */
  page(page: number, pageSize: number): Promise<{ rows: DeadLetterRow[]; total: number }>;
  count(): Promise<number>;
  find(id: number): Promise<DeadLetterRow | null>;
  /** The next `limit` rows after id `afterId`, oldest first. */
  after(afterId: number, limit: number): Promise<DeadLetterRow[]>;
  /** A replay failed: the row keeps the new error and attempt count. */
  failedAgain(id: number, error: string, attempts: number): Promise<void>;
  /** False when there was no such row. */
  remove(id: number): Promise<boolean>;
}

/** Error messages can be long (a driver's whole query): the table keeps what a person reads. */
const ERROR_MAX = 2_000;
const clip = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text);
const seconds = (ms: number): number => Math.floor(ms / 1000);

export function createDeadLetterStore(db: DataSource, service: DeadLetterService): DeadLetterStore {
  const repository: Repository<DeadLetterRow> = db.getRepository(deadLetterEntities[service]);

  return {
    async record(letter) {
      const key = { consumer: clip(letter.consumer, 255), pattern: clip(letter.pattern, 255), event_id: clip(letter.id, 255) };
      const failure = { error: clip(letter.error, ERROR_MAX), failed_at: seconds(Date.parse(letter.failedAt)) };
      try {
        await repository.insert({
          ...key,
          ...failure,
          subject: clip(letter.subject, 255),
          payload: letter.payload,
          time: clip(letter.time, 40),
          attempts: letter.attempts,
          created_at: seconds(Date.now()),
        });
        return { row: await repository.findOneByOrFail(key), created: true };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const existing = await repository.findOneByOrFail(key);
      await repository.update(existing.id, { ...failure, attempts: existing.attempts + letter.attempts });
      return { row: await repository.findOneByOrFail({ id: existing.id }), created: false };
    },

    async page(page, pageSize) {
      const [rows, total] = await repository.findAndCount({ order: { id: 'ASC' }, skip: (page - 1) * pageSize, take: pageSize });
      return { rows, total };
    },

    count: () => repository.count(),

    find: (id) => repository.findOneBy({ id }),

    after: (afterId, limit) => repository.find({ where: { id: MoreThan(afterId) }, order: { id: 'ASC' }, take: limit }),

    async failedAgain(id, error, attempts) {
      await repository.update(id, { error: clip(error, ERROR_MAX), attempts, failed_at: seconds(Date.now()) });
    },

    async remove(id) {
      const result = await repository.delete({ id });
      return (result.affected ?? 0) > 0;
    },
  };
}
