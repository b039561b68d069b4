import { defaultOptionValues, type OptionKey, type OptionValues } from '@aigw/contracts';
import { createSilentLogger, type BusEvent, type OptionsMirror } from '@aigw/platform';
import { backends, createTestEnvironment, waitFor, type TestEnvironment } from '@aigw/platform/testing';
import { LimitGate, RateLimitedError } from '../../src/limits/limit-gate';
import { DAY_MS, MINUTE_MS, requestLines, userLimitsOf, type LimitSubject } from '../../src/limits/limit-rules';
import { goDuration } from '../../src/limits/limit-headers';

/** Options as a mirror holds them, set by the test. */
function optionsOf(values: Partial<OptionValues>): OptionsMirror {
  const all: OptionValues = { ...defaultOptionValues(), ...values };
  return { get: <K extends OptionKey>(key: K) => all[key], all: () => all, onChange: () => {}, close: async () => {} };
}

const subject = (overrides: Partial<LimitSubject> = {}): LimitSubject => ({
  tokenId: 7,
  userId: 3,
  group: 'default',
  model: 'gpt-4o',
  tokenLimits: {},
  userLimits: {},
  ...overrides,
});
const about = { userId: 3, tokenId: 7, group: 'default', model: 'gpt-4o' };

/**
 * The usage-limit gate on both counter adapters (in-memory and Redis), with the clock in the
 * test's hand: token limits across windows, two relay instances sharing one count, the
 * fail-open policy, and the refusal events held back so a flood does not flood the bus.
 */
describe.each(backends)('the usage-limit gate (%s)', (backend) => {
  let env: TestEnvironment;
  let now = 0;
  const gateWith = (values: Partial<OptionValues> = {}, failOpen: Array<'rate' | 'concurrency'> = ['rate']) =>
    new LimitGate({ ...env.infra, logger: createSilentLogger(), options: optionsOf(values), failOpen: new Set(failOpen), clock: () => now });

  beforeAll(async () => {
    env = await createTestEnvironment(backend);
  });
  afterAll(async () => {
    await env?.cleanup();
  });
  beforeEach(() => {
    // A fresh minute far from the others' windows, so cases do not share counts.
    now = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS + Math.floor(Math.random() * 1_000_000) * DAY_MS;
  });

  it('stops a key after its tokens per minute are used and lets it through in the next window', async () => {
    const gate = gateWith();
    const limits = subject({ tokenId: 101, tokenLimits: { tpm: 1_000 } });
    const plan = (tokens: number, id: string) => requestLines(limits, gate.settings(), { id, tokens, slotTtlMs: 60_000 });
    const first = await gate.admit(plan(600, 'r1'), 'r1', about);
    await first.finish({ tokens: 900, success: true });
    await expect(gate.admit(plan(200, 'r2'), 'r2', about)).rejects.toThrow(RateLimitedError);
    const refusal = await gate.admit(plan(200, 'r3'), 'r3', about).catch((error: RateLimitedError) => error);
    expect(refusal).toMatchObject({ statusCode: 429, headers: { 'x-ratelimit-limit-tokens': '1000', 'x-ratelimit-remaining-tokens': '100' } });
    // Two minutes on, nothing of that minute counts.
    now += 2 * MINUTE_MS;
    const later = await gate.admit(plan(200, 'r4'), 'r4', about);
    expect(later.headers).toMatchObject({ 'x-ratelimit-remaining-tokens': '800' });
  });

  it("answers a refusal of the key's own limits with its text, and any other refusal with the default one", async () => {
    const gate = gateWith({ DefaultUserRateLimits: { rpm: 1 } });
    const limits = subject({ tokenId: 105, userId: 105, tokenLimits: { rpm: 1, concurrency: 5 }, rateLimitMessage: 'one a minute, please' });
    const plan = (id: string) => requestLines(limits, gate.settings(), { id, tokens: 1, slotTtlMs: 60_000 });
    await gate.admit(plan('k1'), 'k1', about);
    const byKey = await gate.admit(plan('k2'), 'k2', about).catch((error: RateLimitedError) => error);
    expect(byKey).toMatchObject({
      statusCode: 429,
      message: 'one a minute, please',
      headers: { 'x-ratelimit-limit-requests': '1', 'retry-after': expect.any(String) },
    });
    // The user's own limit is not the key's: its refusal keeps the default words.
    const other = subject({ tokenId: 106, userId: 105, tokenLimits: { rpm: 10 }, rateLimitMessage: 'one a minute, please' });
    const byUser = await gate
      .admit(requestLines(other, gate.settings(), { id: 'k3', tokens: 1, slotTtlMs: 60_000 }), 'k3', about)
      .catch((error: RateLimitedError) => error);
    expect((byUser as RateLimitedError).message).toMatch(/^Rate limit reached for your account on requests per minute \(RPM\)/);
  });

  it('shares one count between two relay instances', async () => {
    const [one, two] = [gateWith(), gateWith()];
    const limits = subject({ tokenId: 102, tokenLimits: { rpm: 10 } });
    const attempts = Array.from({ length: 40 }, (_, index) => {
      const gate = index % 2 === 0 ? one : two;
      const id = `shared-${index}`;
      return gate.admit(requestLines(limits, gate.settings(), { id, tokens: 1, slotTtlMs: 60_000 }), id, about).then(
        () => 'admitted',
        () => 'refused',
      );
    });
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((outcome) => outcome === 'admitted')).toHaveLength(10);
  });

  it('frees a concurrency slot on release (twice is harmless) and after its lifetime', async () => {
    const gate = gateWith();
    const limits = subject({ tokenId: 103, tokenLimits: { concurrency: 1 } });
    const plan = (id: string) => requestLines(limits, gate.settings(), { id, tokens: 1, slotTtlMs: 30_000 });
    const first = await gate.admit(plan('c1'), 'c1', about);
    const busy = await gate.admit(plan('c2'), 'c2', about).catch((error: RateLimitedError) => error);
    expect(busy).toMatchObject({ statusCode: 429, retryAfterSeconds: 1 });
    await first.release();
    await first.release();
    await gate.admit(plan('c3'), 'c3', about);
    await expect(gate.admit(plan('c4'), 'c4', about)).rejects.toThrow(RateLimitedError);
    // A relay that died holding it: the slot expires with its lifetime.
    now += 30_001;
    await expect(gate.admit(plan('c5'), 'c5', about)).resolves.toMatchObject({ headers: {} });
  });

  it('follows LIMITS_FAIL_OPEN when the counters fail: rate limits admit unchecked, concurrency refuses', async () => {
    const failing = { ...env.infra.counters, limit: () => Promise.reject(new Error('redis away')) };
    const gate = new LimitGate({
      ...env.infra,
      counters: failing,
      logger: createSilentLogger(),
      options: optionsOf({}),
      failOpen: new Set(['rate']),
      clock: () => now,
    });
    const rate = requestLines(subject({ tokenLimits: { rpm: 1 } }), gate.settings(), { id: 'f1', tokens: 1, slotTtlMs: 1_000 });
    await expect(gate.admit(rate, 'f1', about)).resolves.toMatchObject({ headers: {} });
    const slots = requestLines(subject({ tokenLimits: { concurrency: 1 } }), gate.settings(), { id: 'f2', tokens: 1, slotTtlMs: 1_000 });
    await expect(gate.admit(slots, 'f2', about)).rejects.toMatchObject({ statusCode: 503, code: 'limits_unavailable' });
    const open = new LimitGate({
      ...env.infra,
      counters: failing,
      logger: createSilentLogger(),
      options: optionsOf({}),
      failOpen: new Set(['rate', 'concurrency']),
    });
    await expect(open.admit(slots, 'f3', about)).resolves.toMatchObject({ headers: {} });
    const closed = new LimitGate({ ...env.infra, counters: failing, logger: createSilentLogger(), options: optionsOf({}), failOpen: new Set() });
    await expect(closed.admit(rate, 'f4', about)).rejects.toMatchObject({ statusCode: 503 });
  });

  it('announces refusals on the bus at most once per limit every 10 seconds, counting the rest', async () => {
    const events: BusEvent[] = [];
    await env.infra.bus.subscribe('relay.limit.exceeded', async (event) => void events.push(event), {});
    const gate = gateWith();
    const limits = subject({ tokenId: 104, tokenLimits: { rpm: 1 } });
    const plan = (id: string) => requestLines(limits, gate.settings(), { id, tokens: 1, slotTtlMs: 1_000 });
    await gate.admit(plan('e0'), 'e0', { ...about, tokenId: 104 });
    for (let index = 1; index <= 5; index++) await gate.admit(plan(`e${index}`), `e${index}`, { ...about, tokenId: 104 }).catch(() => null);
    await waitFor(() => events.length >= 1, 5_000, 'limit event');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ scope: 'key', field: 'rpm', limit: 1, token_id: 104, user_id: 3, model: 'gpt-4o', refused: 1 });
  });
});

describe('which limits apply', () => {
  const settings = {
    defaultUser: { rpm: 10, tpd: 5_000 },
    groups: { vip: { rpm: 100 } },
    models: { 'gpt-4o': { rpm: 600, groups: { vip: { rpm: 1_200 } } } },
    userRequests: { enabled: true, minutes: 5, count: 20, success: 10, groups: { vip: [50, 40] as [number, number] } },
  };

  it("takes each user limit from the user's own set, else the group's, else the default", () => {
    expect(userLimitsOf({ group: 'default', userLimits: {} }, settings)).toEqual({ rpm: 10, tpd: 5_000 });
    expect(userLimitsOf({ group: 'vip', userLimits: { tpd: 9 } }, settings)).toEqual({ rpm: 100, tpd: 9 });
  });

  it('plans the key, user, model, model-in-group and per-user request lines, tokens capped at the limit', () => {
    const planned = requestLines(subject({ group: 'vip', tokenLimits: { tpm: 100, concurrency: 2 } }), settings, { id: 'q', tokens: 500, slotTtlMs: 9_000 });
    expect(planned.lines).toEqual([
      { kind: 'window', key: 'limit:key:7:tpm', windowMs: MINUTE_MS, limit: 100, need: 100, add: 100 },
      { kind: 'slots', key: 'limit:key:7:concurrency', limit: 2, member: 'q', ttlMs: 9_000 },
      { kind: 'window', key: 'limit:user:3:rpm', windowMs: MINUTE_MS, limit: 100, need: 1, add: 1 },
      { kind: 'window', key: 'limit:user:3:tpd', windowMs: DAY_MS, limit: 5_000, need: 500, add: 500 },
      { kind: 'window', key: 'limit:model:gpt-4o:rpm', windowMs: MINUTE_MS, limit: 600, need: 1, add: 1 },
      { kind: 'window', key: 'limit:model:gpt-4o:group:vip:rpm', windowMs: MINUTE_MS, limit: 1_200, need: 1, add: 1 },
      { kind: 'window', key: 'limit:user-requests:3:5:total', windowMs: 5 * MINUTE_MS, limit: 50, need: 1, add: 1 },
      { kind: 'window', key: 'limit:user-requests:3:5:success', windowMs: 5 * MINUTE_MS, limit: 40, need: 1, add: 0 },
    ]);
    expect(planned.rules.map((rule) => `${rule.scope}.${rule.field}`)).toEqual([
      'key.tpm',
      'key.concurrency',
      'user.rpm',
      'user.tpd',
      'model.rpm',
      'group_model.rpm',
      'user_requests.rpm',
      'user_requests.success',
    ]);
  });

  it('plans nothing when nothing is limited, so the gate makes no call', () => {
    const none = { defaultUser: {}, groups: {}, models: {}, userRequests: { ...settings.userRequests, enabled: false } };
    expect(requestLines(subject(), none, { id: 'q', tokens: 1, slotTtlMs: 1 }).lines).toEqual([]);
  });

  it('formats the reset as OpenAI does', () => {
    expect([goDuration(250), goDuration(1_000), goDuration(1_500), goDuration(360_000), goDuration(3_723_000)]).toEqual([
      '250ms',
      '1s',
      '1.5s',
      '6m0s',
      '1h2m3s',
    ]);
  });
});
