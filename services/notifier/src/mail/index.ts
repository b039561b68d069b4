import type { FastifyInstance } from 'fastify';
import type { Subscription } from '@aigw/platform';
import type { NotifierContext } from '../context.js';
import { subscribeMail } from './consumers.js';
import { defaultMailSettings, MAIL_JOB, sendMail, type MailRuntime, type MailSettings } from './deliveries.js';
import { createMailer } from './mailer.js';
import { answerMailOutcome } from './outcome.js';
import { registerNotices, type NoticeSettings } from '../notices/index.js';

export { defaultMailSettings, type MailSettings } from './deliveries.js';

/**
 * Email, all of it: the SMTP mailer, the job that sends queued mails, the durable consumers
 * that queue them, the answer to how a requested mail went (users' own notices among them, by the method each user chose). Returns the subscriptions for the plugin to end on close.
 */
export async function registerMail(
  app: FastifyInstance,
  context: NotifierContext,
  overrides: Partial<MailSettings> = {},
  noticeSettings: NoticeSettings,
): Promise<Subscription[]> {
  const settings: MailSettings = { ...defaultMailSettings, ...overrides };
  const runtime: MailRuntime = { context, settings, mailer: createMailer(context.options, settings.timeouts) };
  app.addHook('onClose', async () => runtime.mailer.close());
  await context.jobs.work(MAIL_JOB, (job) => sendMail(runtime, job), { concurrency: settings.concurrency });
  // Users' own notices go by mail or by the method they chose (notices/).
  const notices = await registerNotices(app, context, noticeSettings);
  return [...(await subscribeMail({ mail: runtime, notices })), await answerMailOutcome(context)];
}
