import { newRequestId } from '../src/request-ids';

const VERSION_7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The Unix milliseconds an id carries (its first 48 bits). */
const millisOf = (id: string) => parseInt(id.replaceAll('-', '').slice(0, 12), 16);

describe('request ids', () => {
  it('are UUIDs of version 7 carrying the time they were made', () => {
    const before = Date.now();
    const id = newRequestId();
    const after = Date.now();
    expect(id).toMatch(VERSION_7);
    expect(millisOf(id)).toBeGreaterThanOrEqual(before);
    expect(millisOf(id)).toBeLessThanOrEqual(after);
    expect(millisOf(newRequestId(Date.UTC(2030, 0, 1)))).toBe(Date.UTC(2030, 0, 1));
  });

  it('sort by time as text, across the pool of random bytes being drawn again', () => {
    const start = Date.UTC(2026, 10, 28);
    // 1,000 ids: the pool (256 ids) is drawn four times on the way.
    const ids = Array.from({ length: 1_000 }, (_, index) => newRequestId(start + index));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => VERSION_7.test(id))).toBe(true);
  });

  it('differ within one millisecond: 74 random bits each', () => {
    const now = Date.now();
    const ids = Array.from({ length: 100_000 }, () => newRequestId(now));
    expect(new Set(ids).size).toBe(ids.length);
    // The random part really varies: every hex digit of it takes many values over the ids.
    const randomDigits = (id: string) => id.replaceAll('-', '').slice(13);
    for (let position = 0; position < 19; position++) {
      if (position === 3) continue; // the variant's digit: 8 to b only
      expect(new Set(ids.slice(0, 1_000).map((id) => randomDigits(id)[position])).size).toBe(16);
    }
  });
});
