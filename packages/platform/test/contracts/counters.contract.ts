import type { Counters, Kv, LimitLine, LimitResult } from '../../src/counters/counters.js';

const minute = 60_000;
const day = 86_400_000;

export interface CountersHarness {
  /** An adapter on the shared store; every call may open its own connection (same instance in memory). */
  open(): Counters;
  /** The Kv of the same store: where a reservation's note goes and a drain's forget deletes. */
  kv(): Kv;
  close(): Promise<void>;
}

/** The behaviour every Counters adapter must have; `factory` gives each test an empty store. */
export function defineCountersContract(name: string, factory: () => Promise<CountersHarness>): void {
  describe(`Counters contract: ${name}`, () => {
    let harness: CountersHarness;
    let counters: Counters;

    beforeEach(async () => {
      harness = await factory();
      counters = harness.open();
    });

    afterEach(async () => {
      await harness.close();
    });

    it('get returns null for a missing key and the value after set', async () => {
      expect(await counters.get('a')).toBeNull();
      await counters.set('a', 42);
      expect(await counters.get('a')).toBe(42);
      await counters.set('a', -3);
      expect(await counters.get('a')).toBe(-3);
    });

    it('seed stores only when absent and returns what is stored', async () => {
      expect(await counters.seed('a', 10)).toBe(10);
      expect(await counters.seed('a', 99)).toBe(10);
      expect(await counters.get('a')).toBe(10);
    });

    it('adjust adds to an existing key and leaves a missing key missing', async () => {
      await counters.set('a', 10);
      expect(await counters.adjust('a', 5)).toBe(15);
      expect(await counters.adjust('a', -20)).toBe(-5);
      expect(await counters.adjust('missing', 5)).toBeNull();
      expect(await counters.get('missing')).toBeNull();
    });

    it('seed with minus stores the value less that counter (0 when it is missing)', async () => {
      await counters.set('held', 30);
      expect(await counters.seed('a', 100, 'held')).toBe(70);
      expect(await counters.seed('a', 500, 'held')).toBe(70);
      expect(await counters.seed('b', 100, 'nothing-held')).toBe(100);
    });

    it('rebase sets an existing key to the value less the other counter, and leaves a missing key missing', async () => {
      await counters.set('a', 5);
      await counters.set('held', 12);
      expect(await counters.rebase('a', 100, 'held')).toBe(88);
      expect(await counters.get('a')).toBe(88);
      expect(await counters.rebase('a', 100, 'nothing-held')).toBe(100);
      expect(await counters.rebase('missing', 100, 'held')).toBeNull();
      expect(await counters.get('missing')).toBeNull();
      await expect(counters.rebase('a', 0.5, 'held')).rejects.toThrow(TypeError);
    });

    it('adjustMany applies every delta at once; only created keys come into being', async () => {
      await counters.set('a', 10);
      expect(
        await counters.adjustMany([
          { key: 'a', delta: -3 },
          { key: 'missing', delta: 5 },
          { key: 'created', delta: -4, create: true },
          { key: 'zero', delta: 0, create: true },
        ]),
      ).toEqual([7, null, -4, 0]);
      expect(await counters.get('missing')).toBeNull();
      expect(await counters.adjustMany([])).toEqual([]);
      await expect(
        counters.adjustMany([
          { key: 'a', delta: 1 },
          { key: 'b', delta: 1.5 },
        ]),
      ).rejects.toThrow(TypeError);
      expect(await counters.get('a')).toBe(7);
    });

    it('drain empties a counter into others beyond its kept part, once', async () => {
      await counters.set('hold', 30);
      await counters.set('user', 100);
      await counters.set('held', 30);
      const moves = [
        { key: 'user', sign: 1 as const },
        { key: 'token-lost', sign: 1 as const },
        { key: 'held', sign: -1 as const },
      ];
      // Of two concurrent drains, exactly one gets the value.
      const results = await Promise.all([counters.drain('hold', 12, moves), counters.drain('hold', 12, moves)]);
      expect(results.sort()).toEqual([30, null]);
      expect(await counters.get('hold')).toBeNull();
      expect(await counters.get('user')).toBe(118);
      expect(await counters.get('held')).toBe(12);
      expect(await counters.get('token-lost')).toBeNull();
      // Kept above the value: nothing moves (never a negative refund); create makes a missing key.
      await counters.set('hold', 5);
      expect(await counters.drain('hold', 9, moves)).toBe(5);
      expect(await counters.get('user')).toBe(118);
      await counters.set('hold', 7);
      expect(await counters.drain('hold', 0, [{ key: 'fresh', sign: -1, create: true }])).toBe(7);
      expect(await counters.get('fresh')).toBe(-7);
      await expect(counters.drain('hold', -1, moves)).rejects.toThrow(TypeError);
      await expect(counters.drain('hold', 0.5, moves)).rejects.toThrow(TypeError);
    });

    it('reserve applies its credits only when it succeeds, creating them when missing', async () => {
      await counters.set('user', 10);
      expect(await counters.reserve([{ key: 'user', amount: 4 }], [{ key: 'held', delta: 4 }])).toEqual({ ok: true, balances: [6] });
      expect(await counters.reserve([{ key: 'user', amount: 4 }], [{ key: 'held', delta: 4 }])).toEqual({ ok: true, balances: [2] });
      expect(await counters.get('held')).toBe(8);
      expect(await counters.reserve([{ key: 'user', amount: 4 }], [{ key: 'held', delta: 4 }])).toEqual({ ok: false, key: 'user', reason: 'insufficient' });
      expect(await counters.get('held')).toBe(8);
      await expect(counters.reserve([{ key: 'user', amount: 1 }], [{ key: 'held', delta: 0.5 }])).rejects.toThrow(TypeError);
      expect(await counters.get('user')).toBe(2);
    });

    it('reserve writes its note with the take, and takes nothing when the note exists', async () => {
      const kv = harness.kv();
      await counters.set('user', 10);
      const note = { key: 'hold:r1', value: () => '{"owner":"a"}', ttlMs: 60_000 };
      expect(await counters.reserve([{ key: 'user', amount: 4 }], [{ key: 'amount:r1', delta: 4 }], note)).toEqual({ ok: true, balances: [6] });
      expect(await kv.get('hold:r1')).toBe('{"owner":"a"}');
      expect(await kv.ttl('hold:r1')).toBeGreaterThan(59_000);
      // The same note again: refused before any line is looked at, nothing taken or credited.
      expect(await counters.reserve([{ key: 'user', amount: 4 }], [{ key: 'amount:r1', delta: 4 }], { ...note, value: () => 'other' })).toEqual({
        ok: false,
        key: 'hold:r1',
        reason: 'exists',
      });
      expect(await counters.reserve([{ key: 'missing', amount: 1 }], [], note)).toMatchObject({ reason: 'exists' });
      expect([await counters.get('user'), await counters.get('amount:r1'), await kv.get('hold:r1')]).toEqual([6, 4, '{"owner":"a"}']);
      // A refused line leaves no note; no lines at all still credits and writes it (a zero hold).
      expect(await counters.reserve([{ key: 'user', amount: 7 }], [{ key: 'amount:r2', delta: 7 }], { ...note, key: 'hold:r2' })).toMatchObject({
        reason: 'insufficient',
      });
      expect([await counters.get('amount:r2'), await kv.get('hold:r2')]).toEqual([null, null]);
      expect(await counters.reserve([], [{ key: 'amount:r3', delta: 0 }], { ...note, key: 'hold:r3' })).toEqual({ ok: true, balances: [] });
      expect([await counters.get('amount:r3'), await kv.get('hold:r3')]).toEqual([0, '{"owner":"a"}']);
      // Of concurrent reservations with one note, exactly one takes.
      await counters.set('user', 100);
      const racing = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          harness.open().reserve([{ key: 'user', amount: 10 }], [], { ...note, key: 'hold:race', value: () => String(index) }),
        ),
      );
      expect(racing.filter((result) => result.ok)).toHaveLength(1);
      expect(await counters.get('user')).toBe(90);
      await expect(counters.reserve([{ key: 'user', amount: 1 }], [], { ...note, key: 'hold:r4', ttlMs: 0 })).rejects.toThrow(TypeError);
      expect(await kv.get('hold:r4')).toBeNull();
    });

    it("makes a reservation's note once, when it is needed", async () => {
      const kv = harness.kv();
      await counters.set('user', 10);
      let made = 0;
      const value = () => {
        made += 1;
        return `{"made":${made}}`;
      };
      expect(await counters.reserve([{ key: 'user', amount: 1 }], [], { key: 'hold:lazy', value, ttlMs: 60_000 })).toMatchObject({ ok: true });
      // Redis makes it with the step; in one process it waits for the first read (most are never read).
      expect(made).toBeLessThanOrEqual(1);
      expect(await kv.get('hold:lazy')).toBe('{"made":1}');
      expect(await kv.get('hold:lazy')).toBe('{"made":1}');
      expect(made).toBe(1);
      // Forgotten unread: gone whether or not it was made.
      await counters.reserve([{ key: 'user', amount: 1 }], [{ key: 'amount:unread', delta: 1 }], { key: 'hold:unread', value, ttlMs: 60_000 });
      await counters.drain('amount:unread', 0, [{ key: 'user', sign: 1 }], 'hold:unread');
      expect(await kv.get('hold:unread')).toBeNull();
      expect(await counters.get('user')).toBe(9);
    });
    it('drain deletes its forget key in the same step, whether the counter was there or not', async () => {
      const kv = harness.kv();
      await kv.set('hold:r1', 'details');
      await kv.set('hold:r2', 'details');
      await counters.set('amount:r1', 10);
      await counters.set('user', 0);
      expect(await counters.drain('amount:r1', 3, [{ key: 'user', sign: 1 }], 'hold:r1')).toBe(10);
      expect([await counters.get('user'), await kv.get('hold:r1')]).toEqual([7, null]);
      expect(await counters.drain('amount:r2', 0, [{ key: 'user', sign: 1 }], 'hold:r2')).toBeNull();
      expect([await counters.get('user'), await kv.get('hold:r2')]).toEqual([7, null]);
    });

    it('delete removes the key', async () => {
      await counters.set('a', 1);
      await counters.delete('a');
      expect(await counters.get('a')).toBeNull();
      await counters.delete('never-there');
    });

    it('reserve takes from every key and returns the balances in line order', async () => {
      await counters.set('user', 100);
      await counters.set('token', 50);
      await counters.set('group', 7);
      const result = await counters.reserve([
        { key: 'user', amount: 30 },
        { key: 'token', amount: 20 },
        { key: 'group', amount: 7 },
      ]);
      expect(result).toEqual({ ok: true, balances: [70, 30, 0] });
      expect(await counters.get('user')).toBe(70);
    });

    it('reserve changes nothing when one key is insufficient', async () => {
      await counters.set('user', 100);
      await counters.set('token', 10);
      await counters.set('group', 100);
      const result = await counters.reserve([
        { key: 'user', amount: 30 },
        { key: 'token', amount: 11 },
        { key: 'group', amount: 30 },
      ]);
      expect(result).toEqual({ ok: false, key: 'token', reason: 'insufficient' });
      expect([await counters.get('user'), await counters.get('token'), await counters.get('group')]).toEqual([100, 10, 100]);
    });

    it('reserve reports a missing key and changes nothing', async () => {
      await counters.set('user', 100);
      const result = await counters.reserve([
        { key: 'user', amount: 30 },
        { key: 'token', amount: 1 },
      ]);
      expect(result).toEqual({ ok: false, key: 'token', reason: 'missing' });
      expect(await counters.get('user')).toBe(100);
      expect(await counters.get('token')).toBeNull();
    });

    it('rejects amounts that are not safe integers before changing anything', async () => {
      await counters.set('a', 100);
      await expect(counters.reserve([{ key: 'a', amount: 1.5 }])).rejects.toThrow(TypeError);
      await expect(counters.reserve([{ key: 'a', amount: 2 ** 53 }])).rejects.toThrow(TypeError);
      await expect(counters.reserve([{ key: 'a', amount: 0 }])).rejects.toThrow(RangeError);
      await expect(
        counters.reserve([
          { key: 'a', amount: 1 },
          { key: 'a', amount: 1 },
        ]),
      ).rejects.toThrow(RangeError);
      await expect(counters.adjust('a', 0.1)).rejects.toThrow(TypeError);
      await expect(counters.set('a', Number.NaN)).rejects.toThrow(TypeError);
      await expect(counters.seed('b', 1.5)).rejects.toThrow(TypeError);
      expect(await counters.get('a')).toBe(100);
      expect(await counters.get('b')).toBeNull();
    });

    it('concurrent reserves never overdraw', async () => {
      const connections = [counters, harness.open(), harness.open(), harness.open()];
      await counters.seed('pool', 1000);
      await counters.seed('other', 1_000_000);
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          connections[index % connections.length]!.reserve([
            { key: 'other', amount: 1 },
            { key: 'pool', amount: 7 },
          ]),
        ),
      );
      const successes = results.filter((result) => result.ok).length;
      expect(successes).toBe(Math.floor(1000 / 7));
      expect(await counters.get('pool')).toBe(1000 - 7 * successes);
      expect(await counters.get('other')).toBe(1_000_000 - successes);
      for (const result of results) {
        if (!result.ok) expect(result).toEqual({ ok: false, key: 'pool', reason: 'insufficient' });
      }
    });

    describe('limit', () => {
      type WindowLine = Extract<LimitLine, { kind: 'window' }>;
      const window = (key: string, limit: number, need = 1, add = need, windowMs = minute): WindowLine => ({ kind: 'window', key, windowMs, limit, need, add });
      const slots = (key: string, limit: number, member: string, ttlMs = minute): LimitLine => ({ kind: 'slots', key, limit, member, ttlMs });

      /** Whether `line` could admit its need at `now`, without adding (an admitted probe only creates an empty window). */
      async function fitsAt(line: WindowLine, now: number): Promise<boolean> {
        return (await counters.limit([{ ...line, add: 0 }], now)).ok;
      }

      function refusal(result: LimitResult): Extract<LimitResult, { ok: false }> {
        if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
        return result;
      }

      /** A refusal's retryAfterMs is the least wait: the line fits then, and not a millisecond before. */
      async function expectLeastWait(line: WindowLine, now: number, retryAfterMs: number): Promise<void> {
        expect(retryAfterMs).toBeGreaterThanOrEqual(1);
        expect(retryAfterMs).toBeLessThanOrEqual(2 * line.windowMs);
        expect(await fitsAt(line, now + retryAfterMs - 1)).toBe(false);
        expect(await fitsAt(line, now + retryAfterMs)).toBe(true);
      }

      it('admits exactly the limit among concurrent calls, and tells the next when it may retry', async () => {
        const connections = [counters, harness.open(), harness.open(), harness.open()];
        const now = 1000 * minute + minute / 2;
        const line = window('rpm', 50);
        const results = await Promise.all(Array.from({ length: 200 }, (_, index) => connections[index % connections.length]!.limit([line], now)));
        expect(results.filter((result) => result.ok)).toHaveLength(50);
        expect(await counters.get('rpm:1000')).toBe(50);
        // All 50 still count when the next window starts; a fiftieth of them must decay first.
        const wait = minute / 2 + minute / 50;
        expect(await counters.limit([line], now)).toEqual({ ok: false, index: 0, states: [{ used: 50, limit: 50, resetMs: minute / 2 }], retryAfterMs: wait });
        expect(wait).toBeLessThanOrEqual(minute);
        await expectLeastWait(line, now, wait);
      });

      it('estimates with the previous window weighted by how much of it still overlaps', async () => {
        expect(await counters.limit([window('sliding', 50, 50)], 0)).toMatchObject({ ok: true, windows: [0] });
        // A quarter into window 1, three quarters of window 0 count: 37.5, rounded up to 38.
        const quarterIn = minute + minute / 4;
        expect(await counters.limit([window('sliding', 50, 13)], quarterIn)).toEqual({
          ok: false,
          index: 0,
          states: [{ used: 38, limit: 50, resetMs: (3 * minute) / 4 }],
          retryAfterMs: minute / 100,
        });
        await expectLeastWait(window('sliding', 50, 13), quarterIn, minute / 100);
        expect(await counters.limit([window('sliding', 50, 12)], quarterIn)).toEqual({
          ok: true,
          states: [{ used: 50, limit: 50, resetMs: (3 * minute) / 4 }],
          windows: [1],
        });
        // When window 2 starts, window 0 no longer counts and all of window 1 does.
        expect(await counters.limit([window('sliding', 50, 38, 0)], 2 * minute)).toMatchObject({ ok: true, states: [{ used: 12 }] });
        expect(await counters.limit([window('sliding', 50, 39, 0)], 2 * minute)).toMatchObject({ ok: false, states: [{ used: 12 }] });
      });

      it('is all-or-nothing: a refusal by any line adds nothing and takes no slot', async () => {
        const now = 40 * day + 5 * minute;
        expect((await counters.limit([window('daily', 1, 1, 1, day)], now)).ok).toBe(true);
        const refused = await counters.limit([window('per-minute', 10), window('daily', 1, 1, 1, day), slots('concurrent', 5, 'r1')], now);
        expect(refused).toEqual({
          ok: false,
          index: 1,
          states: [
            { used: 0, limit: 10, resetMs: minute },
            { used: 1, limit: 1, resetMs: day - 5 * minute },
            { used: 0, limit: 5, resetMs: 0 },
          ],
          retryAfterMs: day - 5 * minute + day,
        });
        expect(await counters.get(`per-minute:${40 * 24 * 60 + 5}`)).toBeNull();
        // The first line that refuses is the one named.
        expect(await counters.limit([window('per-minute', 10), window('daily', 1, 1, 1, day), window('never', 1, 2)], now)).toMatchObject({
          ok: false,
          index: 1,
        });
        expect(await counters.limit([window('per-minute', 10), slots('concurrent', 5, 'r1')], now)).toMatchObject({
          ok: true,
          states: [{ used: 1 }, { used: 1 }],
          windows: [40 * 24 * 60 + 5, null],
        });
      });

      it('holds tokens, settles them with the actual usage, and ignores a settle of an expired window', async () => {
        const now = 7 * minute + 5000;
        const tokens = window('tpm', 250, 100);
        expect(await counters.limit([tokens], now)).toEqual({ ok: true, states: [{ used: 100, limit: 250, resetMs: 55_000 }], windows: [7] });
        expect(await counters.limit([tokens], now)).toMatchObject({ ok: true, states: [{ used: 200 }] });
        // 200 held leave no room in this window; the next starts with them and must decay to 150.
        expect(await counters.limit([tokens], now)).toEqual({
          ok: false,
          index: 0,
          states: [{ used: 200, limit: 250, resetMs: 55_000 }],
          retryAfterMs: 70_000,
        });
        await expectLeastWait(tokens, now, 70_000);
        await counters.settleWindow('tpm', 7, -80);
        expect(await counters.get('tpm:7')).toBe(120);
        expect(await counters.limit([tokens], now)).toMatchObject({ ok: true, states: [{ used: 220 }] });
        // An expired window is a missing one (Redis expires it after two windows; deleted here as that would).
        await counters.delete('tpm:7');
        await counters.settleWindow('tpm', 7, 50);
        await counters.settleWindow('tpm', 3, 50);
        expect([await counters.get('tpm:7'), await counters.get('tpm:3')]).toEqual([null, null]);
      });

      it('a check with add 0 never adds, and counts what is settled into its window', async () => {
        const now = 3 * minute + 100;
        const successes = window('successes', 3, 1, 0);
        for (let call = 0; call < 5; call += 1) {
          expect(await counters.limit([successes], now)).toEqual({ ok: true, states: [{ used: 0, limit: 3, resetMs: minute - 100 }], windows: [3] });
        }
        expect(await counters.get('successes:3')).toBe(0);
        for (let success = 0; success < 3; success += 1) await counters.settleWindow('successes', 3, 1);
        expect(await counters.limit([successes], now)).toMatchObject({ ok: false, index: 0, states: [{ used: 3 }] });
        expect(await counters.get('successes:3')).toBe(3);
      });

      it('slots admit up to the limit at once, free on release or expiry, and count a member once', async () => {
        const connections = [counters, harness.open(), harness.open(), harness.open()];
        const start = 5_000_000;
        const take = (member: string, now: number, on = counters) => on.limit([slots('concurrent', 3, member)], now);
        const results = await Promise.all(Array.from({ length: 10 }, (_, index) => take(`r${index}`, start, connections[index % connections.length])));
        const holders = results.flatMap((result, index) => (result.ok ? [`r${index}`] : []));
        expect(holders).toHaveLength(3);
        for (const result of results) {
          if (!result.ok) expect(result).toEqual({ ok: false, index: 0, states: [{ used: 3, limit: 3, resetMs: minute }], retryAfterMs: minute });
        }
        const [first, second] = holders as [string, string];
        // Taking it again renews the slot and still counts one.
        expect(await take(first, start + 1000)).toEqual({ ok: true, states: [{ used: 3, limit: 3, resetMs: minute - 1000 }], windows: [null] });
        await counters.releaseSlots(['concurrent'], second);
        await counters.releaseSlots(['concurrent'], second);
        await counters.releaseSlots(['never-taken'], second);
        expect(await take('late', start + 2000)).toMatchObject({ ok: true, states: [{ used: 3 }] });
        expect(await take('refused', start + 2000)).toMatchObject({ ok: false });
        // The third holder's slot, taken at start, expires at start + minute and no longer counts from then on.
        expect(await take('after-expiry', start + minute - 1)).toMatchObject({ ok: false, retryAfterMs: 1 });
        expect(await take('after-expiry', start + minute)).toEqual({ ok: true, states: [{ used: 3, limit: 3, resetMs: 1000 }], windows: [null] });
      });

      it('counts the slots held at a moment, without taking one', async () => {
        const start = 7_000_000;
        expect(await counters.countSlots('in-flight', start)).toBe(0);
        await counters.limit([slots('in-flight', 5, 'a', 10_000)], start);
        await counters.limit([slots('in-flight', 5, 'b', 20_000)], start);
        expect(await counters.countSlots('in-flight', start + 1)).toBe(2);
        // 'a' expires at start + 10 s: from then on it is not held.
        expect(await counters.countSlots('in-flight', start + 10_000)).toBe(1);
        await counters.releaseSlots(['in-flight'], 'b');
        expect(await counters.countSlots('in-flight', start + 1)).toBe(1);
        expect(await counters.countSlots('in-flight', start + 10_000)).toBe(0);
      });

      it('reports each line as used, its limit, and when its window ends or its earliest slot frees', async () => {
        const now = 19_000 * day + 3 * 3_600_000;
        expect(await counters.limit([window('daily-tokens', 1000, 10, 10, day), slots('sessions', 2, 'a', 30_000)], now)).toEqual({
          ok: true,
          states: [
            { used: 10, limit: 1000, resetMs: day - 3 * 3_600_000 },
            { used: 1, limit: 2, resetMs: 30_000 },
          ],
          windows: [19_000, null],
        });
        expect(await counters.limit([window('daily-tokens', 1000, 302, 302, day), slots('sessions', 2, 'b', 60_000)], now + 5000)).toMatchObject({
          ok: true,
          states: [{ used: 312 }, { used: 2, resetMs: 25_000 }],
        });
        // "312 of 1,000 today" reads the day's window as a counter.
        expect(await counters.get('daily-tokens:19000')).toBe(312);
        await counters.releaseSlots(['sessions'], 'a');
        await counters.releaseSlots(['sessions'], 'b');
        // A need above the limit never fits: the wait is until all it counts has expired.
        expect(await counters.limit([slots('sessions', 2, 'c'), window('tiny', 1, 2)], 30 * minute + 10)).toEqual({
          ok: false,
          index: 1,
          states: [
            { used: 0, limit: 2, resetMs: 0 },
            { used: 0, limit: 1, resetMs: minute - 10 },
          ],
          retryAfterMs: 2 * minute - 10,
        });
        expect(await counters.limit([], now)).toEqual({ ok: true, states: [], windows: [] });
      });

      it('keeps the estimate exact where a count times the window passes 2^53', async () => {
        // One ms into the next day this held count weighs an integer plus 1/day, which doubles round down: one token too few.
        const held = 11_578 * day - 1;
        const tokens = window('big', 2_000_000_000_000, held, held, day);
        expect((await counters.limit([tokens], 0)).ok).toBe(true);
        const now = day + 1;
        const exact = Number((BigInt(held) * BigInt(day - 1) + BigInt(day - 1)) / BigInt(day));
        const room = tokens.limit - exact;
        expect(await counters.limit([{ ...tokens, need: room, add: 0 }], now)).toMatchObject({ ok: true, states: [{ used: exact }] });
        const refused = refusal(await counters.limit([{ ...tokens, need: room + 1 }], now));
        expect(refused.states).toEqual([{ used: exact, limit: tokens.limit, resetMs: day - 1 }]);
        await expectLeastWait({ ...tokens, need: room + 1 }, now, refused.retryAfterMs);
      });

      it('refuses malformed lines before changing anything', async () => {
        const valid = window('checked', 5);
        for (const bad of [
          { ...valid, windowMs: 0 },
          { ...valid, limit: 0 },
          { ...valid, need: 1.5 },
          { ...valid, add: -1 },
          { ...slots('s', 1, 'm'), ttlMs: 0 },
          slots('s', 1, ''),
        ]) {
          await expect(counters.limit([valid, bad], 0)).rejects.toThrow(TypeError);
        }
        await expect(counters.limit([valid], -1)).rejects.toThrow(TypeError);
        await expect(counters.limit([valid, window('checked', 9)], 0)).rejects.toThrow(RangeError);
        await expect(counters.settleWindow('checked', 0, 0.5)).rejects.toThrow(TypeError);
        expect(await counters.get('checked:0')).toBeNull();
      });
    });
  });
}
