import { z } from 'zod';
import { NotifyType } from '@aigw/contracts';
import { openSecret, sealSecret, type EgressClient, type Job } from '@aigw/platform';
import type { NotifierContext } from '../context.js';
import { answerError, callError, recordDelivery, settleAttempt, type AttemptOutcome, type DeliveryCause } from '../delivery-records.js';
import { DeliveryEntity } from '../entities/index.js';
import { answerFailure, noticeCall, storedNoticeSchema, type StoredNotice } from './methods.js';

/** Tunables of notice delivery: the webhook ones (config WEBHOOK_*), since both call URLs over HTTP. */
export interface NoticeSettings {
  timeoutMs: number;
  attempts: number;
  backoffMs: number;
  concurrency: number;
}

export interface NoticeRuntime {
  context: NotifierContext;
  settings: NoticeSettings;
  egress: EgressClient;
}

export const NOTICE_JOB = 'notifier.notice';
const noticeJobSchema = z.object({ delivery_id: z.number().int().positive() });
const ERROR_MAX = 300;

/** The dedupe row of a notice: one per cause (an event id) and target. */
export function noticeCause(cause: string, target: string): DeliveryCause {
  return { kind: 'notice', dedupe_key: cause, target };
}

/**
 * Records the notice (its request sealed: it may hold the user's token or secret) and queues its
 * job with the row id as job id; a repeated order finds its row and re-queues it only while pending.
 */
export async function queueNotice(runtime: NoticeRuntime, cause: DeliveryCause, topic: string, notice: StoredNotice): Promise<void> {
  const { context, settings } = runtime;
  const delivery = await recordDelivery(context.db, cause, { topic, webhook_id: 0, payload: sealSecret(JSON.stringify(notice), context.keySecret) });
  if (delivery.status !== 'pending') return;
  await context.jobs.add(NOTICE_JOB, { delivery_id: delivery.id } satisfies z.infer<typeof noticeJobSchema>, {
    jobId: `notice-${delivery.id}`,
    attempts: settings.attempts,
    backoffMs: settings.backoffMs,
  });
}

/**
 * The job: one attempt of one notice, only while its row is pending (so never twice once sent).
 * A failure is recorded and thrown for the Jobs port to retry after its backoff; the last one (or
 * an address the egress guard refuses) marks the row failed and publishes `notifier.delivery.failed`.
 */
export async function sendNotice(runtime: NoticeRuntime, job: Job): Promise<void> {
  const { context } = runtime;
  const { delivery_id: id } = noticeJobSchema.parse(job.data);
  const delivery = await context.db.getRepository(DeliveryEntity).findOneBy({ id });
  if (!delivery || delivery.kind !== 'notice' || delivery.status !== 'pending') return;
  const notice = storedNoticeSchema.parse(JSON.parse(openSecret(delivery.payload, context.keySecret)));
  await settleAttempt(context, delivery, delivery.attempts + 1, await call(runtime, notice), job.attempt < job.attempts);
}

/** One call through the egress guard (judged again now), redirects not followed, bounded by the timeout. */
async function call(runtime: NoticeRuntime, notice: StoredNotice): Promise<AttemptOutcome> {
  const { options } = runtime.context;
  const appToken = options.get('WxPusherAppToken');
  if (notice.method === NotifyType.WxPusher && !appToken)
    return { ok: false, statusCode: 0, error: 'WxPusher is not configured: WxPusherAppToken is empty', final: true };
  const request = noticeCall(notice, { baseUrl: options.get('WxPusherBaseUrl') || 'https://wxpusher.zjiecode.com', appToken });
  const { timeoutMs } = runtime.settings;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const answer = await runtime.egress.fetchJson(
      request.url,
      { method: request.method, headers: request.headers, body: request.body, signal },
      { maxBytes: 64 * 1024 },
    );
    if (answer.statusCode < 200 || answer.statusCode >= 300) {
      const excerpt = answer.text.replace(/\s+/g, ' ').trim().slice(0, ERROR_MAX);
      return { ok: false, statusCode: answer.statusCode, error: answerError(answer.statusCode, excerpt), final: false };
    }
    const failure = answerFailure(notice.method, answer.data);
    return { ok: failure === '', statusCode: answer.statusCode, error: failure, final: false };
  } catch (error) {
    return callError(error, signal, timeoutMs);
  }
}
