import type { FastifyInstance } from 'fastify';
import type { NotifierContext } from '../context.js';
import { outboundEgress } from '../outbound.js';
import { NOTICE_JOB, sendNotice, type NoticeRuntime, type NoticeSettings } from './delivery.js';

export { notifyUser, noticeRoute, type NoticeContact, type NoticeDispatch } from './dispatch.js';
export type { NoticeRuntime, NoticeSettings } from './delivery.js';

/**
 * Users' notices by their own method (README.md): the egress pool they are sent through and the
 * job that sends them. Users' URLs follow the relay's address rule (root's
 * AllowPrivateNetworkUpstreams), checked when saved (identity) and on every call.
 */
export async function registerNotices(app: FastifyInstance, context: NotifierContext, settings: NoticeSettings): Promise<NoticeRuntime> {
  const runtime: NoticeRuntime = {
    context,
    settings,
    egress: outboundEgress(context, settings.timeoutMs),
  };
  app.addHook('onClose', async () => runtime.egress.close());
  await context.jobs.work(NOTICE_JOB, (job) => sendNotice(runtime, job), { concurrency: settings.concurrency });
  return runtime;
}
