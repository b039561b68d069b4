import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { deadLettersQuerySchema, idSchema, msg, webhookExcludedSubjects, type DeadLetterView, type Page } from '@aigw/contracts';
import { envelopeErrorHandler } from '../error-handler.js';
import { NotFoundError } from '../errors.js';
import type { DeadLetterRow } from './dead-letter.entity.js';
import type { DeadLetters } from './dead-letters.js';

const idParams = z.object({ id: idSchema });

/**
 * Root's view of one service's dead letters, under `/api/dead_letter/<service>/` and served by that
 * service: each service holds its own, so the gateway routes the prefix to it like any other (no
 * service reads another's table, and no request fans out). The console asks each service.
 */
export const deadLetterRoutes: FastifyPluginAsyncZod<{ deadLetters: DeadLetters }> = async (app, { deadLetters }) => {
  // Console routes answer the envelope, also in the relay, whose own handler answers OpenAI's shape.
  app.setErrorHandler(envelopeErrorHandler);
  const root = { access: 'root' } as const;
  const base = `/api/dead_letter/${deadLetters.service}`;

  app.get(`${base}/`, { schema: { querystring: deadLettersQuerySchema }, config: root }, async (request) => {
    const { p, page_size } = request.query;
    const { rows, total } = await deadLetters.store.page(p, page_size);
    const data: Page<DeadLetterView> = { items: rows.map(toDeadLetterView), total, page: p, page_size };
    return { success: true, message: '', data };
  });

  // A replay that fails again is a business failure: the envelope says why (the handler's own words, as the row records them), the row stays.
  app.post(`${base}/:id/replay`, { schema: { params: idParams }, config: root }, async (request) => {
    const outcome = await deadLetters.replay(request.params.id);
    return outcome.ok ? { success: true, message: '' } : { success: false, message: `${msg('dead_letters.replay_failed')}: ${outcome.error}` };
  });

  app.post(`${base}/replay_all`, { config: root }, async () => {
    const data = await deadLetters.replayAll();
    return { success: true, message: '', data };
  });

  app.delete(`${base}/:id`, { schema: { params: idParams }, config: root }, async (request) => {
    const row = await deadLetters.store.find(request.params.id);
    if (!row || !(await deadLetters.store.remove(row.id))) throw new NotFoundError(msg('dead_letters.not_found'));
    // The event is never handled now: say who dropped it (dead letters have no audit action yet).
    request.log.warn(
      { deadLetterId: row.id, subject: row.subject, eventId: row.event_id, consumer: row.consumer, actor: request.auth?.username },
      'dead letter deleted',
    );
    return { success: true, message: '' };
  });
};

/** The row as root sees it; the payload of a mail request stays out (its one-time code is the user's alone). */
export function toDeadLetterView(row: DeadLetterRow): DeadLetterView {
  const published = Date.parse(row.time);
  return {
    id: row.id,
    event_id: row.event_id,
    subject: row.subject,
    consumer: row.consumer,
    pattern: row.pattern,
    payload: (webhookExcludedSubjects as readonly string[]).includes(row.subject) ? null : row.payload,
    error: row.error,
    attempts: row.attempts,
    published_at: Number.isNaN(published) ? row.created_at : Math.floor(published / 1000),
    failed_at: row.failed_at,
    created_at: row.created_at,
  };
}
