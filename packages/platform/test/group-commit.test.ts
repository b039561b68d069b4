import { groupCommit } from '../src/bus/group-commit';

describe('groupCommit', () => {
  it('applies what arrived within the window in one call, and resolves every item after it', async () => {
    const calls: number[][] = [];
    const group = groupCommit<number>(
      async (items) => {
        calls.push([...items]);
      },
      { windowMs: 20, maxItems: 100 },
    );
    await Promise.all([1, 2, 3].map((item) => group.add(item)));
    await group.add(4);
    expect(calls).toEqual([[1, 2, 3], [4]]);
  });

  it('closes a group at maxItems without waiting for the window', async () => {
    const calls: number[][] = [];
    const group = groupCommit<number>(
      async (items) => {
        calls.push([...items]);
      },
      { windowMs: 60_000, maxItems: 2 },
    );
    await Promise.all([group.add(1), group.add(2)]);
    expect(calls).toEqual([[1, 2]]);
  });

  it('fails every item of a group whose apply failed, and the next group is applied afresh', async () => {
    let fail = true;
    const applied: number[] = [];
    const group = groupCommit<number>(
      async (items) => {
        if (fail) throw new Error('database away');
        applied.push(...items);
      },
      { windowMs: 10, maxItems: 100 },
    );
    const results = await Promise.allSettled([group.add(1), group.add(2)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await Promise.all([group.add(1), group.add(2)]);
    expect(applied).toEqual([1, 2]);
  });
});
