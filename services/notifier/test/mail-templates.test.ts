import { defaultOptionValues, type OptionKey, type OptionValues } from '@aigw/contracts';
import type { OptionsMirror } from '@aigw/platform';
import { defaultSmtpTimeouts, smtpSettings, transportOptions } from '../src/mail/mailer';
import { checkParams, escapeHtml, formatQuota, formatTime, mailTemplates, renderMail } from '../src/mail/templates';

const mirror = (values: Partial<OptionValues>): OptionsMirror => {
  const all = { ...defaultOptionValues(), ...values };
  return { get: (key: OptionKey) => all[key], all: () => all, onChange: () => undefined, close: async () => undefined } as OptionsMirror;
};

describe('mail templates', () => {
  const hostile = '<script>alert("x")</script> & \'q\'';

  it('renders every template in both languages, escaping every parameter in the HTML', () => {
    const samples = {
      verification_code: { code: hostile, minutes: '10', system_name: hostile },
      password_reset: { link: `https://gw.example.com/user/reset?email=a%40b.c&token=${hostile}`, minutes: '15', system_name: hostile },
      low_balance: { username: hostile, quota: '$0.20', threshold: '$0.50', link: 'https://gw.example.com/topup', system_name: hostile },
      channel_disabled: { name: hostile, id: '7', reason: hostile, time: '2024-11-26 05:46:40 UTC', system_name: hostile },
    };
    for (const template of mailTemplates) {
      for (const locale of ['zh-CN', 'en-US'] as const) {
        const mail = renderMail(template, locale, samples[template] as never);
        expect(mail.subject.length).toBeGreaterThan(0);
        expect(mail.html).not.toContain('<script>');
        expect(mail.html).toContain(escapeHtml('<script>alert("x")</script>'));
        expect(mail.text).toContain('<script>alert("x")</script>');
        expect(mail.html).toContain(`<html lang="${locale}">`);
      }
    }
  });

  it('writes the channel alert with the established subject, and an English counterpart', () => {
    const params = { name: 'north', id: '12', reason: 'status 401: invalid key', time: formatTime(1732600000), system_name: 'Gate' };
    expect(renderMail('channel_disabled', 'zh-CN', params).subject).toBe('通道「north」（#12）已被禁用');
    expect(renderMail('channel_disabled', 'en-US', params).subject).toBe('Channel "north" (#12) has been disabled');
    expect(renderMail('channel_disabled', 'zh-CN', params).text).toBe(
      '通道「north」（#12）已被禁用，原因：status 401: invalid key\n\n禁用时间：2024-11-26 05:46:40 UTC\n',
    );
  });

  it('keeps a subject on one line whatever a parameter holds', () => {
    expect(renderMail('channel_disabled', 'en-US', { name: 'a\r\nBcc: x@y.z', id: '1', reason: '', time: '', system_name: '' }).subject).toBe(
      'Channel "a Bcc: x@y.z" (#1) has been disabled',
    );
  });

  it('links only web addresses', () => {
    const html = renderMail('password_reset', 'en-US', { link: 'javascript:alert(1)', minutes: '15', system_name: 'Gate' }).html;
    expect(html).not.toContain('<a href="javascript');
  });

  it('checks parameters before anything is queued', () => {
    expect(checkParams('verification_code', { code: '123456', minutes: '10', system_name: 'Gate' })).toEqual({
      ok: true,
      params: { code: '123456', minutes: '10', system_name: 'Gate' },
    });
    expect(checkParams('password_reset', { minutes: '15' })).toMatchObject({ ok: false, message: expect.stringContaining('link') });
  });

  it('shows balances as currency (quota / QuotaPerUnit) or as the raw figure', () => {
    expect(formatQuota(100_000, { inCurrency: true, quotaPerUnit: 500_000 })).toBe('$0.20');
    expect(formatQuota(-5_000, { inCurrency: true, quotaPerUnit: 500_000 })).toBe('-$0.01');
    expect(formatQuota(1234, { inCurrency: false, quotaPerUnit: 500_000 })).toBe('1234');
  });
});

describe('SMTP settings', () => {
  it('needs a server and a sender (SMTPFrom, else the account)', () => {
    expect(smtpSettings(mirror({}))).toEqual({ missing: 'SMTPServer' });
    expect(smtpSettings(mirror({ SMTPServer: 'smtp.example.com' }))).toEqual({ missing: 'SMTPFrom' });
    expect(smtpSettings(mirror({ SMTPServer: 'smtp.example.com', SMTPAccount: 'me@example.com', SystemName: 'Gate' }))).toMatchObject({
      from: 'me@example.com',
      port: 587,
      secure: false,
      fromName: 'Gate',
    });
  });

  it('maps SSL, the port, the account and token, and bounded waits to the transport', () => {
    const settings = smtpSettings(
      mirror({ SMTPServer: 'smtp.example.com', SMTPPort: 2525, SMTPAccount: 'me', SMTPToken: 'secret', SMTPFrom: 'a@b.c', SMTPSSLEnabled: true }),
    );
    expect(transportOptions(settings as never, defaultSmtpTimeouts)).toEqual({
      host: 'smtp.example.com',
      port: 2525,
      secure: true,
      auth: { user: 'me', pass: 'secret' },
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
      dnsTimeout: 10_000,
    });
    // Port 465 is implicit TLS whatever the flag says; no account means no AUTH.
    const open = smtpSettings(mirror({ SMTPServer: 'relay.local', SMTPPort: 465, SMTPFrom: 'a@b.c' }));
    expect(transportOptions(open as never, defaultSmtpTimeouts)).toMatchObject({ secure: true, auth: undefined });
  });
});
