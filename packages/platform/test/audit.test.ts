import { auditRecordSchema, AUDIT_MASK } from '@aigw/contracts';
import { auditSourceOf, buildAuditRecord, clientIpOf, createApp, createSilentLogger, signIdentity, type AuthContext } from '../src/index';

const source = { actor: { user_id: 1, username: 'root', role: 100 }, ip: '203.0.113.7' };

describe('audit records', () => {
  it('keeps only the fields an edit changed, and leaves no record when nothing did', () => {
    const record = buildAuditRecord(
      'identity',
      source,
      {
        action: 'user.updated',
        target: { type: 'user', id: '42', label: 'alice' },
        before: { display_name: 'Alice', group: 'default', role: 1 },
        after: { display_name: 'Alice', group: 'vip', role: 1 },
      },
      1_732_600_000_000,
    )!;
    expect(auditRecordSchema.parse(record)).toEqual(record);
    expect(record).toMatchObject({
      service: 'identity',
      time: 1_732_600_000_000,
      actor: source.actor,
      ip: source.ip,
      action: 'user.updated',
      before: { group: 'default' },
      after: { group: 'vip' },
    });
    expect(record.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      buildAuditRecord('identity', source, {
        action: 'user.updated',
        target: { type: 'user', id: '42', label: 'alice' },
        before: { group: 'vip' },
        after: { group: 'vip' },
      }),
    ).toBeNull();
  });

  it('masks every secret field of the target type, at any depth, and says whether it changed', () => {
    const channel = buildAuditRecord('channels', source, {
      action: 'channel.updated',
      target: { type: 'channel', id: '3', label: 'main' },
      before: { name: 'main', key: 'hash-old', setting: { nested: { key: 'sk-inner' } } },
      after: { name: 'main', key: 'hash-new', setting: { nested: { key: 'sk-inner-2' } } },
    })!;
    expect(channel.before).toEqual({ key: AUDIT_MASK, setting: { nested: { key: AUDIT_MASK } } });
    expect(channel.after).toEqual({ key: AUDIT_MASK, setting: { nested: { key: AUDIT_MASK } } });
    // The same key again is no change: the field is not in the record.
    expect(
      buildAuditRecord('channels', source, {
        action: 'channel.updated',
        target: { type: 'channel', id: '3', label: 'main' },
        before: { name: 'a', key: 'hash' },
        after: { name: 'b', key: 'hash' },
      })!.after,
    ).toEqual({ name: 'b' });

    const option = buildAuditRecord('identity', source, {
      action: 'option.updated',
      target: { type: 'option', id: 'SMTPToken', label: 'SMTPToken' },
      before: { SMTPToken: '' },
      after: { SMTPToken: 'smtp-secret' },
    })!;
    expect([option.before, option.after]).toEqual([{ SMTPToken: '' }, { SMTPToken: AUDIT_MASK }]);
    const plain = buildAuditRecord('identity', source, {
      action: 'option.updated',
      target: { type: 'option', id: 'SystemName', label: 'SystemName' },
      before: { SystemName: 'a' },
      after: { SystemName: 'b' },
    })!;
    expect(plain.after).toEqual({ SystemName: 'b' });

    // Credentials are masked whatever the target.
    const webhook = buildAuditRecord('notifier', source, {
      action: 'webhook.created',
      target: { type: 'webhook', id: '2', label: 'https://hooks.example.com' },
      after: { url: 'https://hooks.example.com', secret: 'sealed', password: 'p', access_token: 't', password_hash: '$argon2id$x' },
    })!;
    expect(webhook.after).toEqual({
      url: 'https://hooks.example.com',
      secret: AUDIT_MASK,
      password: AUDIT_MASK,
      access_token: AUDIT_MASK,
      password_hash: AUDIT_MASK,
    });
    expect(JSON.stringify([channel, option, webhook])).not.toMatch(/hash-old|hash-new|sk-inner|smtp-secret|sealed|argon2/);
  });
});

describe('the client IP of a record', () => {
  const secret = 'internal-secret-for-the-audit-test-0123';
  const root: AuthContext = { userId: 1, username: 'root', role: 100, group: 'default' };

  const build = (internalSecret?: string, trustProxy?: boolean) => {
    const app = createApp({ logger: createSilentLogger(), bodyLimitBytes: 1024, internalSecret, trustProxy });
    app.get('/api/who', { config: { access: 'public' } }, async (request) => ({
      ip: clientIpOf(request),
      source: request.auth ? auditSourceOf(request) : null,
    }));
    return app;
  };

  it('is the one the gateway signed, between processes', async () => {
    const app = build(secret);
    const answer = await app.inject({ method: 'GET', url: '/api/who', headers: signIdentity(secret, 'GET', '/api/who', root, '198.51.100.9') });
    expect(answer.json()).toEqual({ ip: '198.51.100.9', source: { actor: { user_id: 1, username: 'root', role: 100 }, ip: '198.51.100.9' } });
  });

  it('is the one the gateway signed for an anonymous caller too (an API key: the relay checks its IP allow list with it)', async () => {
    const app = build(secret);
    const anonymous = signIdentity(secret, 'GET', '/api/who', null, '198.51.100.9');
    expect((await app.inject({ method: 'GET', url: '/api/who', headers: anonymous })).json()).toEqual({ ip: '198.51.100.9', source: null });
  });

  it("is the connection's when the identity is not the gateway's (a forged signature, or one for another URL)", async () => {
    const app = build(secret);
    const forged = signIdentity('another-secret-entirely-0123456789', 'GET', '/api/who', root, '198.51.100.9');
    expect((await app.inject({ method: 'GET', url: '/api/who', headers: forged })).json()).toEqual({ ip: '127.0.0.1', source: null });
    const elsewhere = signIdentity(secret, 'GET', '/api/other', null, '198.51.100.9');
    expect((await app.inject({ method: 'GET', url: '/api/who', headers: elsewhere })).json()).toEqual({ ip: '127.0.0.1', source: null });
  });

  it("is X-Forwarded-For's from a trusted proxy (the ingress in front of the relay), never without TRUST_PROXY", async () => {
    const forwarded = { 'x-forwarded-for': '203.0.113.50' };
    expect((await build(secret, true).inject({ method: 'GET', url: '/api/who', headers: forwarded })).json()).toEqual({ ip: '203.0.113.50', source: null });
    expect((await build(secret).inject({ method: 'GET', url: '/api/who', headers: forwarded })).json()).toEqual({ ip: '127.0.0.1', source: null });
  });

  it("is the request's own IP in the all-in-one process", async () => {
    const app = build();
    app.addHook('onRequest', async (request) => {
      request.auth = root;
    });
    expect((await app.inject({ method: 'GET', url: '/api/who', remoteAddress: '192.0.2.4' })).json()).toEqual({
      ip: '192.0.2.4',
      source: { actor: { user_id: 1, username: 'root', role: 100 }, ip: '192.0.2.4' },
    });
  });
});
