import { defaultOptionValues, localizeMessage, type OptionKey, type OptionValues } from '@aigw/contracts';
import { EgressBlockedError, publishEvent, type OptionsMirror } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { createMailer, defaultSmtpTimeouts } from '../src/mail/mailer';
import { setOptions, SMTP, startMailWorld, type MailWorld } from './support/mail-world';
import { createSmtpReceiver, type SmtpReceiver } from './support/smtp-receiver';

/**
 * Issue 22.7 (rule R1): the mailer's SMTP connection goes through the same address policy as
 * every other egress, on save and on connect. Private SMTP servers are allowed only by root's
 * AllowPrivateNetworkSmtp; the mailer connects to the address it checked, never to the name.
 */
const mirror = (values: Partial<OptionValues>): OptionsMirror => {
  const all = { ...defaultOptionValues(), ...values };
  return { get: (key: OptionKey) => all[key], all: () => all, onChange: () => undefined, close: async () => undefined } as OptionsMirror;
};
const mail = (to: string) => ({ to, subject: 'hello', text: 'hello', html: '<p>hello</p>', messageId: `<${to}.${Date.now()}@gw.example.com>` });

describe('the mailer connects only where the egress policy allows', () => {
  let receiver: SmtpReceiver;
  beforeAll(async () => {
    receiver = await createSmtpReceiver();
    await receiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  /** `mail.test.invalid` exists only here (a DNS server that answers loopback). */
  const resolve = async (hostname: string) =>
    hostname === 'mail.test.invalid' ? [{ address: '127.0.0.1', family: 4 }] : (await import('node:dns')).promises.lookup(hostname, { all: true });
  const smtp = (host: string, allowPrivate: boolean) =>
    mirror({ SMTPServer: host, SMTPPort: receiver.port, SMTPFrom: SMTP.from, AllowPrivateNetworkSmtp: allowPrivate });

  it.each(['127.0.0.1', 'localhost', 'mail.test.invalid'])('refuses %s while private SMTP servers are off, opening no connection', async (host) => {
    const mailer = createMailer(smtp(host, false), defaultSmtpTimeouts, { resolve });
    const before = receiver.connections;
    const error = await mailer.send(mail('blocked@example.com')).then(
      () => null,
      (failure: unknown) => failure,
    );
    mailer.close();
    expect(error).toBeInstanceOf(EgressBlockedError);
    expect(localizeMessage((error as Error).message, 'en-US')).toMatch(/^egress blocked: .*; private-network SMTP servers are off, .*AllowPrivateNetworkSmtp$/);
    expect(localizeMessage((error as Error).message, 'zh-CN')).toMatch(/^出站请求已拦截：.*；已禁止连接私有网络中的 SMTP 服务器，.*AllowPrivateNetworkSmtp/);
    expect(receiver.connections).toBe(before);
    expect(receiver.mails.filter((received) => received.to.includes('blocked@example.com'))).toHaveLength(0);
  });

  it('connects to the address it checked (a name only its resolver knows), with the switch on', async () => {
    const mailer = createMailer(smtp('mail.test.invalid', true), defaultSmtpTimeouts, { resolve });
    await mailer.send(mail('pinned@example.com'));
    mailer.close();
    expect(receiver.mails.filter((received) => received.to.includes('pinned@example.com'))).toHaveLength(1);
  });
});

describe.each(backends)('SMTP and the egress policy, end to end (%s)', (backend) => {
  let world: MailWorld;
  beforeAll(async () => {
    world = await startMailWorld(backend);
  });
  afterAll(async () => {
    await world?.close();
  });

  const saveOption = async (key: string, value: unknown) =>
    (await world.gateway.call('PUT', '/api/option/', { session: world.root, body: { key, value } })).json<{ success: boolean; message: string }>();

  it('refuses saving an SMTP server on a private address while the switch is off, naming the field and the switch', async () => {
    await setOptions(world.gateway, world.root, { AllowPrivateNetworkSmtp: false });
    for (const host of ['127.0.0.1', 'localhost', '10.0.0.25', '169.254.169.254']) {
      expect({ host, answer: await saveOption('SMTPServer', host) }).toEqual({
        host,
        answer: { success: false, message: expect.stringMatching(/^SMTPServer: egress blocked: .*AllowPrivateNetworkSmtp \(set it first\)$/) },
      });
    }
    const inChinese = await world.gateway.call('PUT', '/api/option/', {
      session: world.root,
      body: { key: 'SMTPServer', value: '127.0.0.1' },
      headers: { 'accept-language': 'zh-CN' },
    });
    expect(inChinese.json()).toEqual({
      success: false,
      message:
        'SMTPServer: 出站请求已拦截：127.0.0.1 属于 loopback 地址段（127.0.0.0/8）；已禁止使用私有网络中的 SMTP 服务器，超级管理员可先开启选项 AllowPrivateNetworkSmtp',
    });
    expect(await saveOption('SMTPServer', '93.184.216.34')).toEqual({ success: true, message: '' });
    await setOptions(world.gateway, world.root, { AllowPrivateNetworkSmtp: true });
    expect(await saveOption('SMTPServer', '127.0.0.1')).toEqual({ success: true, message: '' });
  });

  it('an anonymous verification mail does not make the mailer connect to loopback once the switch is off', async () => {
    await setOptions(world.gateway, world.root, { AllowPrivateNetworkSmtp: true, SMTPServer: '127.0.0.1' });
    await setOptions(world.gateway, world.root, { AllowPrivateNetworkSmtp: false });
    const before = world.receiver.connections;
    // What GET /api/verification asks for, from anyone.
    await publishEvent(world.gateway.env.infra.bus, 'notifier.mail.requested', {
      to: 'anonymous@example.com',
      template: 'verification_code',
      params: { code: 'abc123', minutes: '10', system_name: 'Gate' },
      locale: 'en-US',
    });
    await waitFor(
      async () => (await world.deliveries()).some((row) => row.target === 'anonymous@example.com' && /egress blocked/.test(row.last_error ?? '')),
      10_000,
      'the refused delivery',
    );
    const refused = (await world.deliveries()).find((row) => row.target === 'anonymous@example.com')!;
    expect(refused.last_error).toMatch(/127\.0\.0\.1 is a loopback address .*AllowPrivateNetworkSmtp/);
    expect(world.receiver.connections).toBe(before);
    expect(world.mailsTo('anonymous@example.com')).toHaveLength(0);
  });
});
