import { setTimeout as sleep } from 'node:timers/promises';
import type { Kv } from '../../src/counters/counters.js';
import { waitFor } from '../../src/testing/infrastructure.js';

export interface KvHarness {
  /** An adapter on the shared store; every call may open its own connection (same instance in memory). */
  open(): Kv;
  close(): Promise<void>;
}

/** The behaviour every Kv adapter must have; `factory` gives each test an empty store. */
export function defineKvContract(name: string, factory: () => Promise<KvHarness>): void {
  describe(`Kv contract: ${name}`, () => {
    let harness: KvHarness;
    let kv: Kv;

    beforeEach(async () => {
      harness = await factory();
      kv = harness.open();
    });

    afterEach(async () => {
      await harness.close();
    });

    it('get returns what set stored, null when absent, and delete removes it', async () => {
      expect(await kv.get('a')).toBeNull();
      await kv.set('a', 'one');
      expect(await kv.get('a')).toBe('one');
      await kv.set('a', 'two');
      expect(await kv.get('a')).toBe('two');
      await kv.delete('a');
      expect(await kv.get('a')).toBeNull();
    });

    it('lists live keys by prefix, up to a limit, taking the prefix literally', async () => {
      for (let index = 0; index < 30; index++) await kv.set(`hold:${index}`, String(index));
      await kv.set('holdings', 'x');
      await kv.set('other:1', 'x');
      await kv.set('hold:gone', 'x', { ttlMs: 20 });
      await kv.set('h*ld:1', 'x');
      await waitFor(async () => (await kv.get('hold:gone')) === null, 2_000, 'hold:gone expired');
      const all = await kv.keys('hold:', 1000);
      expect(all.sort()).toEqual(Array.from({ length: 30 }, (_, index) => `hold:${index}`).sort());
      expect((await kv.keys('hold:', 7)).length).toBe(7);
      expect(await kv.keys('h*ld:', 10)).toEqual(['h*ld:1']);
      expect(await kv.keys('nothing:', 10)).toEqual([]);
    });

    it('a key set with a ttl expires', async () => {
      await kv.set('short', 'v', { ttlMs: 100 });
      await kv.set('forever', 'v');
      expect(await kv.get('short')).toBe('v');
      const remaining = await kv.ttl('short');
      expect(remaining).toBeGreaterThan(0);
      expect(remaining).toBeLessThanOrEqual(100);
      expect(await kv.ttl('forever')).toBeNull();
      expect(await kv.ttl('absent')).toBeNull();
      await waitFor(async () => (await kv.get('short')) === null, 2_000, 'short expired');
      expect(await kv.ttl('short')).toBeNull();
      expect(await kv.get('forever')).toBe('v');
    });

    it('set without ttl clears an earlier ttl', async () => {
      await kv.set('a', 'v', { ttlMs: 100 });
      await kv.set('a', 'w');
      expect(await kv.ttl('a')).toBeNull();
    });

    it('setIfAbsent sets only an absent (or expired) key', async () => {
      expect(await kv.setIfAbsent('a', 'first', { ttlMs: 100 })).toBe(true);
      expect(await kv.setIfAbsent('a', 'second')).toBe(false);
      expect(await kv.get('a')).toBe('first');
      await waitFor(async () => (await kv.get('a')) === null, 2_000, 'a expired');
      expect(await kv.setIfAbsent('a', 'third')).toBe(true);
      expect(await kv.get('a')).toBe('third');
      expect(await kv.ttl('a')).toBeNull();
    });

    it('take hands a value out once, even to concurrent callers', async () => {
      await kv.set('code', '123456', { ttlMs: 60_000 });
      const connections = [kv, harness.open(), harness.open(), harness.open()];
      const taken = await Promise.all(Array.from({ length: 20 }, (_, index) => connections[index % connections.length]!.take('code')));
      expect(taken.filter((value) => value !== null)).toEqual(['123456']);
      expect(await kv.get('code')).toBeNull();
      expect(await kv.take('code')).toBeNull();
    });

    it('increment counts within a fixed window that later calls do not extend', async () => {
      expect(await kv.increment('hits', { ttlMs: 250 })).toBe(1);
      expect(await kv.increment('hits', { ttlMs: 250 })).toBe(2);
      // A fixed wait: how much of the window is left after this long is what is checked.
      await sleep(150);
      expect(await kv.increment('hits', { ttlMs: 250 })).toBe(3);
      const remaining = await kv.ttl('hits');
      expect(remaining).toBeGreaterThan(0);
      expect(remaining).toBeLessThanOrEqual(100);
      expect(await kv.get('hits')).toBe('3');
      await waitFor(async () => (await kv.get('hits')) === null, 2_000, 'the window ended');
      expect(await kv.increment('hits', { ttlMs: 250 })).toBe(1);
    });

    it('concurrent increments are all counted', async () => {
      const connections = [kv, harness.open(), harness.open()];
      const values = await Promise.all(Array.from({ length: 30 }, (_, index) => connections[index % connections.length]!.increment('n', { ttlMs: 10_000 })));
      expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
    });

    it('rejects a ttl that is not a positive integer', async () => {
      await expect(kv.set('a', 'v', { ttlMs: 1.5 })).rejects.toThrow(TypeError);
      await expect(kv.setIfAbsent('a', 'v', { ttlMs: 0 })).rejects.toThrow(TypeError);
      await expect(kv.increment('a', { ttlMs: -1 })).rejects.toThrow(TypeError);
      expect(await kv.get('a')).toBeNull();
    });
  });
}
