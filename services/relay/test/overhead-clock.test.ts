// The overhead clock kept per reply must not keep its reply alive: V8's young-generation GC keeps a
// WeakMap's values, so a clock reaching its reply promoted every request's objects to the old
// generation (issue 16: a fifth of the relay's allocation, the scavenges' pauses).
import v8 from 'node:v8';
import vm from 'node:vm';
import type { FastifyReply } from 'fastify';
import { overheadOf } from '../src/overhead';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as (options: { type: 'major' | 'minor' }) => void;
const oldSpaceBytes = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;

it('lets a finished reply die in the young generation', () => {
  gc({ type: 'major' });
  const before = oldSpaceBytes();
  // 10,000 replies of about 800 bytes each: 8 MB that would be promoted if their clocks held them.
  for (let index = 0; index < 10_000; index++) {
    const reply = { elapsedTime: 1, payload: new Array<number>(100).fill(index) } as unknown as FastifyReply;
    expect(overheadOf(reply).value()).toMatch(/^\d+\.\d{2}$/);
  }
  // Two scavenges: what survives both is promoted.
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  expect(oldSpaceBytes() - before).toBeLessThan(3_000_000);
});
