import type { Counters } from '../../src/counters/counters.js';

export interface CountersHarness {
  /** An adapter on the shared store; every call may open its own connection (same instance in memory). */
  open(): Counters;
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
  });
}
