// Mail delivery when things go wrong: SMTP down (retried until it is back), SMTP down for good or
// not configured (failed after the last attempt, notifier.delivery.failed, visible to root), option
// changes (a new transporter), and a repeated cause (one mail). Short retries through the gateway's
// MAIL_ATTEMPTS / MAIL_BACKOFF_MS; both backends (in-process jobs, BullMQ).
import { defaultOptionValues } from '@aigw/contracts';
import { createSilentLogger, publishEvent, type JobOptions, type OptionsMirror } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { DeliveryEntity } from '../src/entities/index';
import { defaultMailSettings, queueMail } from '../src/mail/deliveries';
import { createMailer } from '../src/mail/mailer';
import { collectEvents, setOptions, SMTP, smtpOptions, startMailWorld, type MailWorld } from './support/mail-world';
import { createSmtpReceiver, freePort, type SmtpReceiver } from './support/smtp-receiver';

const ATTEMPTS = 4;

describe.each(backends)('mail delivery (%s)', (backend) => {
  let world: MailWorld;
  const extra: SmtpReceiver[] = [];

  beforeAll(async () => {
    // The receiver exists but does not listen yet: SMTP is down.
    world = await startMailWorld(backend, { listen: false, env: { MAIL_ATTEMPTS: String(ATTEMPTS), MAIL_BACKOFF_MS: '150' } });
  });
  afterAll(async () => {
    for (const receiver of extra) await receiver.stop();
    await world?.close();
  });

  const askCode = async (address: string) =>
    expect((await world.gateway.call('POST', '/api/verification', { body: { email: address } })).json().success).toBe(true);
  const rowTo = async (address: string) => (await world.deliveries()).find((row) => row.target === address);

  it('SMTP down: the user hears at once; the mail stays queued and is retried, and arrives (once) when the server is back', async () => {
    const address = `down-${backend}@example.com`;
    const asked = (await world.gateway.call('POST', '/api/verification', { body: { email: address } })).json();
    expect(asked).toMatchObject({
      success: false,
      message: expect.stringMatching(/^the mail server did not take the mail \(.*ECONNREFUSED.*\); it is tried again/),
    });
    await waitFor(async () => ((await rowTo(address))?.attempts ?? 0) >= 2, 10_000, 'two failed sends');
    const failing = (await rowTo(address))!;
    expect(failing).toMatchObject({ status: 'pending', topic: 'verification_code' });
    expect(failing.last_error).toMatch(/ECONNREFUSED/);

    await world.receiver.start();
    await world.receiver.waitForMails(1);
    await waitFor(async () => (await rowTo(address))?.status === 'sent', 5_000, 'the row marked sent');
    expect(await rowTo(address)).toMatchObject({ status: 'sent', last_error: '' });
    // A fixed wait: a second copy (a retry of a send that did arrive) would come later, and nothing marks its absence.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(world.mailsTo(address)).toHaveLength(1);
  });

  it('an address the mail server refuses: the user hears so at once, with its answer, and may ask again', async () => {
    const address = `nobody-${backend}@example.com`;
    await world.receiver.start();
    world.receiver.refuseRecipient = (to) => to === address;
    try {
      for (let round = 0; round < 2; round++) {
        const asked = (await world.gateway.call('POST', '/api/verification', { body: { email: address } })).json();
        // Not "please wait 30 seconds" the second time: a refused mail frees the resend lock.
        expect(asked).toMatchObject({
          success: false,
          message: expect.stringMatching(/^the mail server did not take the mail \(.*550.*mailbox unavailable.*\)/),
        });
      }
      // A good address still gets its code, and the answer says it went.
      await askCode(`somebody-${backend}@example.com`);
      expect(world.mailsTo(`somebody-${backend}@example.com`)).toHaveLength(1);
    } finally {
      world.receiver.refuseRecipient = undefined;
    }
  });

  it('SMTP not configured: each attempt fails with a clear error; after the last the mail is failed, announced and listed for root', async () => {
    const failures = await collectEvents(world.gateway.env.infra.bus, 'notifier.delivery.failed');
    await setOptions(world.gateway, world.root, { SMTPServer: '' });
    const address = `unset-${backend}@example.com`;
    // A user asking for a code hears at once that no mail can go (nothing is queued for them)...
    expect((await world.gateway.call('POST', '/api/verification', { body: { email: address } })).json()).toEqual({
      success: false,
      message: 'this server cannot send mail: no SMTP server is set; ask the administrator',
    });
    const inChinese = await world.gateway.call('POST', '/api/verification', { body: { email: address }, headers: { 'accept-language': 'zh-CN' } });
    expect(inChinese.json()).toEqual({ success: false, message: '本站无法发送邮件：未设置 SMTP 服务器，请联系管理员' });
    expect(await rowTo(address)).toBeUndefined();
    // ...while a mail another service asks for (a low-balance warning, say) is queued, and fails in the open.
    await publishEvent(world.gateway.env.infra.bus, 'notifier.mail.requested', {
      to: address,
      template: 'verification_code',
      params: { code: 'abc123', minutes: '5', system_name: 'AI Gateway' },
      locale: 'en-US',
    });
    await waitFor(() => failures.some((event) => (event.data as { target: string }).target === address), 10_000, 'the failure announced');

    const row = (await rowTo(address))!;
    const error = 'SMTP is not configured: SMTPServer is empty (settings: SMTP)';
    expect(row).toMatchObject({ status: 'failed', attempts: ATTEMPTS, last_error: error });
    const event = failures.find((candidate) => (candidate.data as { target: string }).target === address)!;
    expect(event.id).toBe(`delivery-failed-${row.id}`);
    expect(event.data).toEqual({ kind: 'mail', delivery_id: row.id, target: address, topic: 'verification_code', attempts: ATTEMPTS, error });

    const listed = (await world.gateway.call('GET', '/api/webhook/deliveries?kind=mail&status=failed&p=1&page_size=10', { session: world.root })).json();
    expect(listed.success).toBe(true);
    expect(listed.data.items).toContainEqual(
      expect.objectContaining({ id: row.id, kind: 'mail', target: address, status: 'failed', attempts: ATTEMPTS, last_error: error }),
    );
    // The rendered mail (the code) never leaves in the list.
    expect(JSON.stringify(listed.data)).not.toContain('verification code');
  });

  it('SMTP down for good: the connection error is what root sees', async () => {
    const failures = await collectEvents(world.gateway.env.infra.bus, 'notifier.delivery.failed');
    await setOptions(world.gateway, world.root, smtpOptions(await freePort()));
    const address = `dead-${backend}@example.com`;
    // The user hears at once; the mail is retried all the same, and given up after the last attempt.
    const asked = (await world.gateway.call('POST', '/api/verification', { body: { email: address } })).json();
    expect(asked).toMatchObject({ success: false, message: expect.stringMatching(/ECONNREFUSED/) });
    await waitFor(() => failures.length === 1, 10_000, 'the failure announced');
    expect(failures[0]!.data).toMatchObject({ kind: 'mail', target: address, attempts: ATTEMPTS, error: expect.stringMatching(/ECONNREFUSED/) });
    expect(await rowTo(address)).toMatchObject({ status: 'failed', attempts: ATTEMPTS });
  });

  it('a change of the SMTP options applies to the next mail (a new transporter, the new token)', async () => {
    await setOptions(world.gateway, world.root, smtpOptions(world.receiver.port));
    await askCode(`first-${backend}@example.com`);
    await waitFor(() => world.mailsTo(`first-${backend}@example.com`).length === 1, 10_000, 'the first mail');
    expect(world.mailsTo(`first-${backend}@example.com`)[0]).toMatchObject({ user: SMTP.account, password: SMTP.token });

    const other = await createSmtpReceiver();
    extra.push(other);
    await other.start();
    await setOptions(world.gateway, world.root, { SMTPToken: 'rotated-token-2', SMTPAccount: 'second@example.com', SMTPPort: other.port });
    const address = `second-${backend}@example.com`;
    await askCode(address);
    const [mail] = await other.waitForMails(1);
    expect(mail).toMatchObject({ to: [address], user: 'second@example.com', password: 'rotated-token-2' });
    expect(world.mailsTo(address)).toHaveLength(0);
  });

  it('one cause and recipient make one mail, however often it is ordered (a redelivered event)', async () => {
    const { gateway } = world;
    const values = { ...defaultOptionValues(), ServerAddress: 'https://gw.example.com' };
    const options = { get: (key: keyof typeof values) => values[key] } as unknown as OptionsMirror;
    // The gateway's jobs, noting every send queued: a mail is only ever sent by a queued job.
    const queued: unknown[] = [];
    const { jobs } = gateway.env.infra;
    const context = {
      db: world.db,
      bus: gateway.env.infra.bus,
      jobs: { ...jobs, add: (name: string, data: unknown, options?: JobOptions) => (queued.push(data), jobs.add(name, data, options)) },
      kv: gateway.env.infra.kv,
      logger: createSilentLogger(),
      options,
      keySecret: Buffer.alloc(32),
    };
    // Only queueing happens here: the gateway's notifier worker sends, with its own mailer.
    const runtime = { context, settings: defaultMailSettings, mailer: createMailer(options) };
    const other = extra[0]!;
    const address = `twice-${backend}@example.com`;
    const order = {
      cause: `event-${backend}-1`,
      to: address,
      template: 'verification_code' as const,
      locale: 'en-US' as const,
      params: { code: 'abc123', minutes: '10', system_name: 'Twice' },
    };
    await Promise.all([queueMail(runtime, order), queueMail(runtime, order)]);
    await waitFor(() => other.mails.some((mail) => mail.to.includes(address)), 10_000, 'the mail');
    await waitFor(async () => (await rowTo(address))?.status === 'sent', 5_000, 'sent');
    const queuedBefore = queued.length;
    await queueMail(runtime, order);
    // Ordered again once sent: nothing is queued, so no further mail can come.
    expect(queued).toHaveLength(queuedBefore);
    expect(other.mails.filter((mail) => mail.to.includes(address))).toHaveLength(1);
    expect(await world.db.getRepository(DeliveryEntity).countBy({ kind: 'mail', target: address })).toBe(1);
  });
});
