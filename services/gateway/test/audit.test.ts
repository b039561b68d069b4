import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { AuditRecord, Page } from '@aigw/contracts';
import { createSilentLogger, openDatabase, type BusEvent } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { owningService } from '../src/route-table';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from './support/gateway';
import { registerAdmin } from './support/authorization-matrix';
import { SoftAuthenticator } from '../../identity/test/support/authenticator';
import { totpCode } from '../../identity/src/domain/two-factor';
import { setNotifierOption } from '../../notifier/test/support/webhooks';

const ORIGIN = 'http://localhost:3000';
/** Secrets set through admin actions: none may appear in a record, an answer of the audit API or an event. */
const CHANNEL_KEY = 'sk-audit-canary-key-0123456789';
const CHANNEL_KEY_2 = 'sk-audit-canary-key-rotated-9876';
const SMTP_TOKEN = 'smtp-audit-canary-token';
const SMTP_TOKEN_2 = 'smtp-audit-canary-token-2';
const WEBHOOK_SECRET = 'whsec-audit-canary-0123456789abcdefghij';
const WEBHOOK_SECRET_2 = 'whsec-audit-canary-rotated-0123456789abcd';
const NEW_PASSWORD = 'audit-canary-pw-9';
const canaries = [CHANNEL_KEY, CHANNEL_KEY_2, SMTP_TOKEN, SMTP_TOKEN_2, WEBHOOK_SECRET, WEBHOOK_SECRET_2, NEW_PASSWORD, '$argon2'];

const auditSubjects = ['identity.audit.recorded', 'billing.audit.recorded', 'channels.audit.recorded', 'notifier.audit.recorded'];

const body = (response: LightMyRequestResponse) => response.json<{ success: boolean; message: string; data?: any }>();

describe('the audit route', () => {
  it("is identity's in the route table (the distributed gateway proxies it there)", () => {
    expect(owningService('/api/audit/?action=user.updated')).toBe('identity');
  });
});

// Issue 22, item 13: every admin or root action that changes a user, a balance, a role, a
// channel, an option or a webhook, or reveals a secret, leaves one audit record (who, what,
// target, before/after with secrets masked, IP, time) that root reads at GET /api/audit/ and
// integrators receive on the bus.
describe.each(backends)('audit trail of admin actions (%s)', (backend) => {
  let gateway: TestGateway;
  let root: Session;
  const events: BusEvent[] = [];
  /** Every raw answer of the audit API, for the secret scan. */
  const answers: string[] = [];

  const ok = async (response: Promise<LightMyRequestResponse>) => {
    const answer = body(await response);
    if (!answer.success) throw new Error(`refused: ${answer.message}`);
    return answer.data;
  };
  const audit = async (query: Record<string, string | number> = {}, session: Session = root) => {
    const params = new URLSearchParams(Object.entries({ page_size: 100, ...query }).map(([key, value]): [string, string] => [key, String(value)]));
    const response = await gateway.call('GET', `/api/audit/?${params.toString()}`, { session });
    answers.push(response.body);
    return response;
  };
  const records = async (query: Record<string, string | number> = {}): Promise<AuditRecord[]> => {
    const response = await audit(query);
    expect(response.statusCode).toBe(200);
    return (body(response).data as Page<AuditRecord>).items;
  };
  /** Waits for the records of an action on a target (the consumer stores them a moment after the change), newest first. */
  const recorded = async (action: string, targetId: number | string, count = 1): Promise<AuditRecord[]> => {
    let found: AuditRecord[] = [];
    await waitFor(
      async () => {
        found = await records({ action, target_id: String(targetId) });
        return found.length >= count;
      },
      10_000,
      `${count} ${action} record(s) of ${targetId}`,
    );
    return found;
  };
  const rootActor = () => ({ user_id: root.id, username: 'root', role: 100 });

  beforeAll(async () => {
    gateway = await startGateway(backend);
    for (const subject of auditSubjects) await gateway.env.infra.bus.subscribe(subject, async (event) => void events.push(event), {});
    root = await gateway.login('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it("records an admin's edits of a user: profile, password (masked), quota (billing's), role, status, second factors, deletion", async () => {
    await ok(gateway.call('POST', '/api/user/', { session: root, body: { username: 'audit-bob', password: 'audit-bob-password' } }));
    const bob = (await ok(gateway.call('GET', '/api/user/search?keyword=audit-bob', { session: root }))).items[0];
    const [created] = await recorded('user.created', bob.id);
    expect(created).toMatchObject({
      service: 'identity',
      actor: rootActor(),
      ip: '127.0.0.1',
      target: { type: 'user', id: String(bob.id), label: 'audit-bob' },
      before: null,
      after: { username: 'audit-bob', display_name: 'audit-bob', role: 1, status: 1, group: 'default', password: '***' },
    });
    expect(created!.time).toBeGreaterThan(Date.now() - 60_000);

    await ok(gateway.call('PUT', '/api/user/', { session: root, body: { id: bob.id, display_name: 'Bob B.', group: 'vip', password: NEW_PASSWORD } }));
    const [updated] = await recorded('user.updated', bob.id);
    // Only what changed, the password as "***" on both sides: changed, never shown.
    expect(updated).toMatchObject({
      actor: rootActor(),
      before: { display_name: 'audit-bob', group: 'default', password: '***' },
      after: { display_name: 'Bob B.', group: 'vip', password: '***' },
    });
    expect(Object.keys(updated!.after!).sort()).toEqual(['display_name', 'group', 'password']);

    // The balance is billing's: its audit record comes from billing, with the admin and the IP identity forwarded.
    await ok(gateway.call('PUT', '/api/user/', { session: root, body: { id: bob.id, quota: 500_000 } }));
    await ok(gateway.call('PUT', '/api/user/', { session: root, body: { id: bob.id, quota_delta: -200_000 } }));
    const quota = await recorded('user.quota_changed', bob.id, 2);
    // (Two records of one millisecond may come in either order.)
    expect(quota.map((record) => [record.before, record.after])).toEqual(
      expect.arrayContaining([
        [{ quota: 500_000 }, { quota: 300_000 }],
        [{ quota: 0 }, { quota: 500_000 }],
      ]),
    );
    expect(quota[0]).toMatchObject({
      service: 'billing',
      actor: rootActor(),
      ip: '127.0.0.1',
      target: { type: 'user', id: String(bob.id), label: 'audit-bob' },
    });
    // The user's own manage log stays: it is what the user sees.
    const logs = (await ok(gateway.call('GET', '/api/log/?type=3&p=1&page_size=100', { session: root, headers: { 'accept-language': 'en-US' } })))
      .items as Array<{
      user_id: number;
      content: string;
    }>;
    expect(logs.filter((log) => log.user_id === bob.id && log.content.startsWith('admin root changed the quota'))).toHaveLength(2);

    await ok(gateway.call('POST', '/api/user/manage', { session: root, body: { id: bob.id, action: 'promote' } }));
    expect((await recorded('user.role_changed', bob.id))[0]).toMatchObject({ before: { role: 1 }, after: { role: 10 } });
    await ok(gateway.call('POST', '/api/user/manage', { session: root, body: { id: bob.id, action: 'demote' } }));
    await ok(gateway.call('POST', '/api/user/manage', { session: root, body: { id: bob.id, action: 'disable' } }));
    expect((await recorded('user.status_changed', bob.id))[0]).toMatchObject({ before: { status: 1 }, after: { status: 2 } });
    await ok(gateway.call('POST', '/api/user/manage', { session: root, body: { id: bob.id, action: 'enable' } }));
    expect((await recorded('user.status_changed', bob.id, 2))[0]).toMatchObject({ before: { status: 2 }, after: { status: 1 } });

    // Bob sets up a second factor and a passkey; root resets both.
    const bobSession = await gateway.login('audit-bob', NEW_PASSWORD);
    const setup = await ok(gateway.call('POST', '/api/user/2fa/setup', { session: bobSession }));
    await ok(gateway.call('POST', '/api/user/2fa/enable', { session: bobSession, body: { code: totpCode(setup.secret) } }));
    await ok(gateway.call('DELETE', `/api/user/${bob.id}/2fa`, { session: root }));
    expect((await recorded('user.2fa_reset', bob.id))[0]).toMatchObject({
      actor: rootActor(),
      before: { two_factor_enabled: true },
      after: { two_factor_enabled: false },
    });
    await ok(gateway.call('PUT', '/api/option/', { session: root, body: { key: 'passkey.enabled', value: true } }));
    const bobAgain = await gateway.login('audit-bob', NEW_PASSWORD);
    const authenticator = new SoftAuthenticator(ORIGIN);
    const begin = await ok(gateway.call('POST', '/api/user/passkey/register/begin', { session: bobAgain }));
    await ok(gateway.call('POST', '/api/user/passkey/register/finish', { session: bobAgain, body: authenticator.create(begin.options) }));
    await ok(gateway.call('DELETE', `/api/user/${bob.id}/reset_passkey`, { session: root }));
    expect((await recorded('user.passkey_reset', bob.id))[0]).toMatchObject({ before: { passkeys: 1 }, after: { passkeys: 0 } });

    await ok(gateway.call('POST', '/api/user/manage', { session: root, body: { id: bob.id, action: 'delete' } }));
    expect((await recorded('user.deleted', bob.id))[0]).toMatchObject({ before: { username: 'audit-bob', display_name: 'Bob B.' }, after: null });
    // Nothing of the secrets: not the new password, not its hash.
    const all = JSON.stringify(await records({ target_type: 'user', target_id: String(bob.id) }));
    expect(all).not.toContain(NEW_PASSWORD);
    expect(all).not.toContain('$argon2');
  });

  it('records channel creation, edits (key masked), the private-network flag, a key reveal and deletion', async () => {
    const ids = (
      await ok(
        gateway.call('POST', '/api/channel/', {
          session: root,
          body: { type: 1, name: 'audited', key: CHANNEL_KEY, models: 'gpt-4o-mini', group: 'default' },
        }),
      )
    ).ids as number[];
    const id = ids[0]!;
    const [created] = await recorded('channel.created', id);
    expect(created).toMatchObject({
      service: 'channels',
      actor: rootActor(),
      ip: '127.0.0.1',
      target: { type: 'channel', id: String(id), label: 'audited' },
      before: null,
      after: { name: 'audited', type: 1, models: 'gpt-4o-mini', group: 'default', key: '***', allow_private_network: false },
    });

    await ok(gateway.call('PUT', '/api/channel/', { session: root, body: { id, name: 'audited-2', key: CHANNEL_KEY_2, allow_private_network: true } }));
    const [updated] = await recorded('channel.updated', id);
    expect(updated).toMatchObject({
      target: { label: 'audited-2' },
      before: { name: 'audited', key: '***', allow_private_network: false },
      after: { name: 'audited-2', key: '***', allow_private_network: true },
    });
    expect((await recorded('channel.private_network_set', id))[0]).toMatchObject({
      actor: rootActor(),
      before: { allow_private_network: false },
      after: { allow_private_network: true },
    });
    // The same edit again changes nothing: no record.
    await ok(gateway.call('PUT', '/api/channel/', { session: root, body: { id, name: 'audited-2' } }));

    // Root reveals the key after a step-up (a passkey assertion of this session).
    await ok(gateway.call('PUT', '/api/option/', { session: root, body: { key: 'passkey.enabled', value: true } }));
    const authenticator = new SoftAuthenticator(ORIGIN);
    const begin = await ok(gateway.call('POST', '/api/user/passkey/register/begin', { session: root }));
    await ok(gateway.call('POST', '/api/user/passkey/register/finish', { session: root, body: authenticator.create(begin.options) }));
    const challenge = await ok(gateway.call('POST', '/api/user/passkey/verify/begin', { session: root }));
    await ok(gateway.call('POST', '/api/verify', { session: root, body: { method: 'passkey', credential: authenticator.get(challenge.options) } }));
    expect(await ok(gateway.call('POST', `/api/channel/${id}/key`, { session: root }))).toEqual({ key: CHANNEL_KEY_2 });
    expect((await recorded('channel.key_revealed', id))[0]).toMatchObject({
      actor: rootActor(),
      ip: '127.0.0.1',
      target: { type: 'channel', label: 'audited-2' },
    });
    await gateway.call('DELETE', '/api/user/passkey', { session: root });

    await ok(gateway.call('DELETE', `/api/channel/${id}`, { session: root }));
    expect((await recorded('channel.deleted', id))[0]).toMatchObject({ before: { name: 'audited-2', key: '***' }, after: null });
    expect(await records({ action: 'channel.updated', target_id: String(id) })).toHaveLength(1);
  });

  it('records option changes; a secret option is "***" on both sides, and "" when it was not set', async () => {
    await ok(gateway.call('PUT', '/api/option/', { session: root, body: { key: 'SystemName', value: 'Audited Gateway' } }));
    expect((await recorded('option.updated', 'SystemName'))[0]).toMatchObject({
      service: 'identity',
      actor: rootActor(),
      target: { type: 'option', id: 'SystemName', label: 'SystemName' },
      before: { SystemName: 'AI Gateway' },
      after: { SystemName: 'Audited Gateway' },
    });
    await ok(gateway.call('PUT', '/api/option/', { session: root, body: { key: 'SMTPToken', value: SMTP_TOKEN } }));
    await ok(gateway.call('PUT', '/api/option/', { session: root, body: { key: 'SMTPToken', value: SMTP_TOKEN_2 } }));
    const tokens = await recorded('option.updated', 'SMTPToken', 2);
    expect(tokens.map((record) => [record.before, record.after])).toEqual(
      expect.arrayContaining([
        [{ SMTPToken: '***' }, { SMTPToken: '***' }],
        [{ SMTPToken: '' }, { SMTPToken: '***' }],
      ]),
    );
  });

  it('records webhook creation, edits, a new secret (masked) and deletion', async () => {
    await setNotifierOption(gateway, root, 'AllowPrivateNetworkUpstreams', true);
    const url = 'http://127.0.0.1:9999/audit-hook';
    const created = await ok(
      gateway.call('POST', '/api/webhook/', { session: root, body: { url, subjects: ['channels.channel.disabled'], secret: WEBHOOK_SECRET } }),
    );
    expect((await recorded('webhook.created', created.id))[0]).toMatchObject({
      service: 'notifier',
      actor: rootActor(),
      target: { type: 'webhook', id: String(created.id), label: url },
      before: null,
      after: { url, subjects: ['channels.channel.disabled'], enabled: true, description: '', secret: '***' },
    });
    await ok(gateway.call('PUT', '/api/webhook/', { session: root, body: { id: created.id, description: 'audited hook', enabled: false } }));
    expect((await recorded('webhook.updated', created.id))[0]).toMatchObject({
      before: { description: '', enabled: true },
      after: { description: 'audited hook', enabled: false },
    });
    await ok(gateway.call('POST', `/api/webhook/${created.id}/rotate`, { session: root, body: { secret: WEBHOOK_SECRET_2 } }));
    expect((await recorded('webhook.updated', created.id, 2))[0]).toMatchObject({ before: { secret: '***' }, after: { secret: '***' } });
    await ok(gateway.call('DELETE', `/api/webhook/${created.id}`, { session: root }));
    expect((await recorded('webhook.deleted', created.id))[0]).toMatchObject({ before: { url, description: 'audited hook' }, after: null });
  });

  it('records redemption codes created, edited and deleted, the code itself masked', async () => {
    const [code] = (await ok(gateway.call('POST', '/api/redemption/', { session: root, body: { name: 'audited', quota: 1000, count: 1 } }))) as string[];
    canaries.push(code!);
    const listed = (await ok(gateway.call('GET', '/api/redemption/search?keyword=audited', { session: root }))).items[0];
    expect((await recorded('redemption.created', listed.id))[0]).toMatchObject({
      service: 'billing',
      actor: rootActor(),
      target: { type: 'redemption', label: 'audited' },
      before: null,
      after: { name: 'audited', quota: 1000, status: 1, key: '***' },
    });
    await ok(gateway.call('PUT', '/api/redemption/', { session: root, body: { id: listed.id, name: 'audited', quota: 2000 } }));
    expect((await recorded('redemption.updated', listed.id))[0]).toMatchObject({ before: { quota: 1000 }, after: { quota: 2000 } });
    await ok(gateway.call('DELETE', `/api/redemption/${listed.id}`, { session: root }));
    expect((await recorded('redemption.deleted', listed.id))[0]).toMatchObject({ before: { name: 'audited', quota: 2000, key: '***' }, after: null });
  });

  it('is root only, and filters by actor, action, target and time', async () => {
    const admin = await registerAdmin(gateway, root, `auditadm${backend.slice(0, 1)}`, 'audit-admin-password');
    await gateway.register('audit-carol', 'audit-carol-password');
    const carol = await gateway.login('audit-carol', 'audit-carol-password');
    expect((await audit({}, admin)).statusCode).toBe(403);
    expect((await audit({}, carol)).statusCode).toBe(403);
    expect((await gateway.call('GET', '/api/audit/')).statusCode).toBe(401);

    // The admin's own action is recorded under the admin.
    await ok(gateway.call('PUT', '/api/user/', { session: admin, body: { id: carol.id, display_name: 'Carol C.' } }));
    const [byAdmin] = await recorded('user.updated', carol.id);
    expect(byAdmin!.actor).toEqual({ user_id: admin.id, username: `auditadm${backend.slice(0, 1)}`, role: 10 });

    expect((await records({ actor: `auditadm${backend.slice(0, 1)}` })).map((record) => record.action)).toEqual(['user.updated']);
    expect((await records({ actor: String(admin.id) })).map((record) => record.id)).toEqual([byAdmin!.id]);
    const channels = await records({ target_type: 'channel' });
    expect(channels.length).toBeGreaterThanOrEqual(5);
    expect(channels.every((record) => record.target.type === 'channel')).toBe(true);
    const page = body(await audit({ target_type: 'channel', p: 2, page_size: 2 })).data as Page<AuditRecord>;
    expect(page).toMatchObject({ total: channels.length, page: 2, page_size: 2 });
    expect(page.items.map((record) => record.id)).toEqual(channels.slice(2, 4).map((record) => record.id));
    const now = Math.floor(Date.now() / 1000);
    expect(await records({ start_timestamp: now + 3600 })).toEqual([]);
    expect((await records({ start_timestamp: now - 3600, end_timestamp: now + 3600, action: 'user.updated' })).length).toBeGreaterThanOrEqual(2);
    // Newest first.
    const times = (await records()).map((record) => record.time);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('publishes every record on the bus (identity, billing, channels, notifier) and stores each once, secrets nowhere', async () => {
    const stored = await records({ page_size: 100 });
    await waitFor(() => stored.every((record) => events.some((event) => (event.data as AuditRecord).id === record.id)), 10_000, 'every record seen on the bus');
    expect(new Set(events.map((event) => event.subject.split('.').slice(-3).join('.')))).toEqual(new Set(auditSubjects));
    for (const event of events) {
      const record = event.data as AuditRecord;
      expect(event.subject.endsWith(`${record.service}.audit.recorded`)).toBe(true);
      expect(stored.find((row) => row.id === record.id)).toEqual(record);
    }

    // A redelivered record (the same id under another event id) is stored once.
    const again = events.find((event) => event.subject.endsWith('channels.audit.recorded'))!;
    await gateway.env.infra.bus.publish('channels.audit.recorded', again.data, { id: randomUUID() });
    const marker = { ...(again.data as AuditRecord), id: randomUUID() };
    await gateway.env.infra.bus.publish('channels.audit.recorded', marker, { id: randomUUID() });
    await waitFor(async () => (await records({ target_type: 'channel' })).some((record) => record.id === marker.id), 10_000, 'the marker stored');
    expect((await records({ target_type: 'channel' })).filter((record) => record.id === (again.data as AuditRecord).id)).toHaveLength(1);

    // The stored rows, every answer of the audit API and every event: no secret.
    const db = await openDatabase({
      url: gateway.env.databaseUrl,
      dataDir: gateway.env.dataDir,
      schema: gateway.env.schema('identity'),
      entities: [],
      migrations: [],
      logger: createSilentLogger(),
    });
    try {
      const rows = JSON.stringify(await db.query('SELECT * FROM audit_records'));
      expect(rows).toContain('channel.key_revealed');
      for (const text of [rows, ...answers, JSON.stringify(events)]) for (const canary of canaries) expect(text).not.toContain(canary);
    } finally {
      await db.destroy();
    }
  });
});
