import {
  decodeOptionValue as decode,
  defaultOptionValues,
  encodeOptionValue,
  isSecretOption,
  localizeMessage,
  optionKeys,
  pageQuerySchema,
  type OptionKey,
} from '../src';

/** A decoded value, its refusal worded in English (the server words it in the caller's language). */
const decodeOptionValue = (key: OptionKey, raw: unknown) => {
  const decoded = decode(key, raw);
  return decoded.ok ? decoded : { ...decoded, message: localizeMessage(decoded.message, 'en-US') };
};

describe('option codecs', () => {
  it('round-trips every default through its stored form', () => {
    const defaults = defaultOptionValues();
    for (const key of optionKeys) {
      const decoded = decodeOptionValue(key, encodeOptionValue(key, defaults[key]));
      expect(decoded).toEqual({ ok: true, value: defaults[key] });
    }
  });

  it('parses booleans, numbers and JSON from strings, and names the key when it cannot', () => {
    expect(decodeOptionValue('RegisterEnabled', 'false')).toEqual({ ok: true, value: false });
    expect(decodeOptionValue('RegisterEnabled', true)).toEqual({ ok: true, value: true });
    expect(decodeOptionValue('RegisterEnabled', 'yes')).toEqual({ ok: false, message: 'RegisterEnabled: expected true or false' });
    expect(decodeOptionValue('QuotaForNewUser', '250')).toEqual({ ok: true, value: 250 });
    expect(decodeOptionValue('QuotaForNewUser', '-1')).toMatchObject({ ok: false, message: expect.stringMatching(/^QuotaForNewUser: /) });
    expect(decodeOptionValue('QuotaForNewUser', '1.5')).toMatchObject({ ok: false });
    expect(decodeOptionValue('QuotaForNewUser', 'abc')).toEqual({ ok: false, message: 'QuotaForNewUser: expected a number' });
    expect(decodeOptionValue('GroupRatio', '{"default":1,"vip":0.5}')).toEqual({ ok: true, value: { default: 1, vip: 0.5 } });
    expect(decodeOptionValue('GroupRatio', '{oops')).toEqual({ ok: false, message: 'GroupRatio: not a legal JSON string' });
    expect(decodeOptionValue('GroupRatio', '{"vip":"x"}')).toMatchObject({ ok: false, message: expect.stringMatching(/^GroupRatio\.vip: /) });
  });

  it('strips trailing slashes from addresses', () => {
    expect(decodeOptionValue('ServerAddress', 'https://gw.example.com///')).toEqual({ ok: true, value: 'https://gw.example.com' });
    expect(decodeOptionValue('ServerAddress', 'not a url')).toMatchObject({ ok: false });
  });

  it('says what was expected from the catalogue, in either language; a bare check in the words of its issue code', () => {
    const refused = decode('ServerAddress', 'ftp://x');
    expect(refused.ok).toBe(false);
    const message = refused.ok ? '' : refused.message;
    expect(localizeMessage(message, 'en-US')).toBe('ServerAddress: expected an http(s) URL');
    expect(localizeMessage(message, 'zh-CN')).toBe('ServerAddress: 必须是 http(s) 网址');
    const negative = decode('QuotaForNewUser', '-1');
    expect(negative.ok ? '' : localizeMessage(negative.message, 'en-US')).toBe('QuotaForNewUser: must be at least 0');
    expect(negative.ok ? '' : localizeMessage(negative.message, 'zh-CN')).toBe('QuotaForNewUser: 不能小于 0');
  });

  it('takes an SMTP host without scheme, port or path, and a sender address, naming the field otherwise', () => {
    for (const server of ['smtp.example.com', 'mail-1.example.co.uk', '192.0.2.10', '[2001:db8::1]', '']) {
      expect(decodeOptionValue('SMTPServer', server)).toEqual({ ok: true, value: server });
    }
    for (const server of ['smtp://smtp.example.com', 'smtp.example.com:465', 'smtp.example.com/x', 'two words']) {
      expect(decodeOptionValue('SMTPServer', server)).toEqual({
        ok: false,
        message: 'SMTPServer: expected a host name or IP address, without scheme, port or path',
      });
    }
    for (const from of ['noreply@example.com', 'Gateway <noreply@example.com>', ''])
      expect(decodeOptionValue('SMTPFrom', from)).toEqual({ ok: true, value: from });
    for (const from of ['noreply', 'a@b', '<noreply@example.com', 'x@example.com y']) {
      expect(decodeOptionValue('SMTPFrom', from)).toEqual({ ok: false, message: 'SMTPFrom: expected an email address (or Name <address>)' });
    }
  });

  it('marks secrets', () => {
    expect(isSecretOption('SMTPToken')).toBe(true);
    expect(isSecretOption('GitHubClientSecret')).toBe(true);
    expect(isSecretOption('SMTPServer')).toBe(false);
    // Every key the established product hides by suffix is a secret here too.
    for (const key of optionKeys) if (/(Token|Secret|Key)$/.test(key) && key !== 'TurnstileSiteKey') expect(isSecretOption(key)).toBe(true);
  });
});

describe('pageQuerySchema', () => {
  it('treats p=0 and p=1 as the first page and defaults the size to 10', () => {
    expect(pageQuerySchema.parse({ p: '0' })).toEqual({ p: 1, page_size: 10 });
    expect(pageQuerySchema.parse({ p: '1', page_size: '20' })).toEqual({ p: 1, page_size: 20 });
    expect(pageQuerySchema.parse({})).toEqual({ p: 1, page_size: 10 });
    expect(pageQuerySchema.safeParse({ page_size: '1000' }).success).toBe(false);
  });
});
