import { EntitySchema } from 'typeorm';
import { deadLetterServices, type DeadLetterService } from '@aigw/contracts';
import { bigintNumber } from '../database/columns.js';

/** One event one of the service's consumers gave up on (dead-letter-table.ts creates the table). */
export interface DeadLetterRow {
  id: number;
  event_id: string;
  subject: string;
  /** The durable name, or the subscription's subject for a subscription without one. */
  consumer: string;
  /** The subject the consumer subscribed to: with `consumer`, which handler a replay runs. */
  pattern: string;
  /** The event's data as JSON text (an undecodable message: its body as received). */
  payload: string;
  /** The event's publication time as it travelled (ISO-8601), so a replay carries it unchanged. */
  time: string;
  /** The last failure's message. */
  error: string;
  /** Deliveries and replays made, the failed last one included. */
  attempts: number;
  /** Unix seconds of the last failure. */
  failed_at: number;
  /** Unix seconds: when it became a dead letter. */
  created_at: number;
}

/**
 * Each service's table is `<service>_dead_letters`: the all-in-one process keeps every service in
 * one SQLite file, so the same name in two services would collide.
 */
export const deadLetterTable = (service: DeadLetterService): string => `${service}_dead_letters`;

function entityOf(service: DeadLetterService): EntitySchema<DeadLetterRow> {
  return new EntitySchema<DeadLetterRow>({
    name: deadLetterTable(service),
    tableName: deadLetterTable(service),
    columns: {
      id: { type: 'integer', primary: true, generated: 'increment' },
      event_id: { type: 'varchar', length: 255 },
      subject: { type: 'varchar', length: 255 },
      consumer: { type: 'varchar', length: 255 },
      pattern: { type: 'varchar', length: 255 },
      payload: { type: 'text' },
      time: { type: 'varchar', length: 40 },
      error: { type: 'text' },
      attempts: { type: 'integer' },
      failed_at: { type: 'bigint', transformer: bigintNumber },
      created_at: { type: 'bigint', transformer: bigintNumber },
    },
  });
}

/** The entity of each service's dead letters: list the own one among the service's entities. */
export const deadLetterEntities = Object.fromEntries(deadLetterServices.map((service) => [service, entityOf(service)])) as Record<
  DeadLetterService,
  EntitySchema<DeadLetterRow>
>;
