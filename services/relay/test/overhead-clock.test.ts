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

/** How much the old generation grew over 10,000 replies of about 800 bytes each and two scavenges (what survives both is promoted). */
function promotedBy(use: (reply: FastifyReply) => string): number {
  gc({ type: 'major' });
  const before = oldSpaceBytes();
  let values = 0;
  for (let index = 0; index < 10_000; index++) {
    const reply = { elapsedTime: 1, payload: new Array<number>(100).fill(index) } as unknown as FastifyReply;
    values += use(reply).length;
  }
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  expect(values).toBeGreaterThan(0);
  return oldSpaceBytes() - before;
}

it('lets a finished reply die in the young generation', () => {
  expect(overheadOf({ elapsedTime: 1 } as unknown as FastifyReply).value()).toMatch(/^\d+\.\d{2}$/);
  // The same loop without a clock: what the process promotes anyway (jest's own work included).
  const baseline = promotedBy(() => 'x');
  // The 8 MB of replies would be promoted if their clocks held them.
  expect(promotedBy((reply) => overheadOf(reply).value()) - baseline).toBeLessThan(3_000_000);
});
