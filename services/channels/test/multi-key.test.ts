import { liveKeyIndexes } from '@aigw/contracts';
import { keyList, keyStates, maskKey, reindexed, routingKeys, setKeyState, withKeyStates } from '../src/domain/multi-key';

/** The key states of a channel with many keys, as stored in channel_info (the established product's names). */
describe('multi-key states', () => {
  // A migrated row as the established product writes it: status 3 = automatically disabled.
  const migrated = JSON.stringify({
    is_multi_key: true,
    multi_key_size: 4,
    multi_key_mode: 'polling',
    multi_key_polling_index: 2,
    multi_key_status_list: { '1': 3, '3': 2, '9': 3, x: 3, '2': 1 },
    multi_key_disabled_reason: { '1': 'status 401' },
    multi_key_disabled_time: { '1': 1_732_600_000 },
  });

  it("reads a migrated row's states, ignoring entries outside the key list", () => {
    const states = keyStates(migrated)!;
    expect(states.mode).toBe('polling');
    expect(states.size).toBe(4);
    expect([...states.off.entries()]).toEqual([
      [1, { status: 3, reason: 'status 401', time: 1_732_600_000 }],
      [3, { status: 2, reason: '', time: 0 }],
    ]);
    expect(routingKeys(states)).toEqual({ mode: 'polling', size: 4, disabled: [1, 3] });
    expect(liveKeyIndexes(routingKeys(states)!)).toEqual([0, 2]);
  });

  it('is null for a channel with one key, and for text that is not its shape', () => {
    expect(keyStates('')).toBeNull();
    expect(keyStates('not json')).toBeNull();
    expect(keyStates(JSON.stringify({ is_multi_key: false, multi_key_size: 3 }))).toBeNull();
    expect(keyStates(JSON.stringify({ is_multi_key: true, multi_key_size: 0 }))).toBeNull();
    // A mode it does not know is read as random rather than losing the channel's keys.
    expect(keyStates(JSON.stringify({ is_multi_key: true, multi_key_size: 2, multi_key_mode: 'sticky' }))?.mode).toBe('random');
  });

  it('writes the states back keeping the fields it does not own', () => {
    const states = setKeyState(keyStates(migrated)!, 0, { status: 3, reason: 'x'.repeat(600), time: 5 });
    const written = JSON.parse(withKeyStates(migrated, states));
    expect(written).toEqual({
      is_multi_key: true,
      multi_key_size: 4,
      multi_key_mode: 'polling',
      multi_key_polling_index: 2,
      multi_key_status_list: { '0': 3, '1': 3, '3': 2 },
      multi_key_disabled_reason: { '0': 'x'.repeat(512), '1': 'status 401', '3': '' },
      multi_key_disabled_time: { '0': 5, '1': 1_732_600_000, '3': 0 },
    });
    expect(JSON.parse(withKeyStates(migrated, null))).toEqual({ multi_key_polling_index: 2 });
    expect(withKeyStates('', null)).toBe('');
    expect(keyStates(withKeyStates('', setKeyState(states, 0, null)))!.off.has(0)).toBe(false);
  });

  it('renumbers the states when keys are removed or added', () => {
    const states = keyStates(migrated)!;
    // Keys 0 and 2 kept (1 and 3 removed): both enabled.
    expect(reindexed(states, 2, [0, 2]).off.size).toBe(0);
    // Keys 1 and 2 kept: the old key 1 (disabled) is now key 0.
    expect([...reindexed(states, 2, [1, 2]).off.keys()]).toEqual([0]);
    // Appended: the old states stay where they were.
    expect([...reindexed(states, 6).off.keys()]).toEqual([1, 3]);
  });

  it('masks keys for the key list: a service account by its e-mail, short keys entirely', () => {
    expect(maskKey('sk-abcdefghijklmnop')).toBe('sk-a****mnop');
    expect(maskKey('short-key')).toBe('****');
    expect(maskKey(JSON.stringify({ client_email: 'relay@p.iam.gserviceaccount.com', private_key: 'secret' }))).toBe(
      'service account relay@p.iam.gserviceaccount.com',
    );
    expect(maskKey('{broken json that is long')).toBe('{bro****long');
    const list = keyList(keyStates(migrated)!, ['sk-0000000000001', 'sk-0000000000002', 'sk-0000000000003', 'sk-0000000000004']);
    expect(list).toMatchObject({ mode: 'polling', size: 4, live: 2 });
    expect(list.keys.map((key) => [key.masked, key.status])).toEqual([
      ['sk-0****0001', 1],
      ['sk-0****0002', 3],
      ['sk-0****0003', 1],
      ['sk-0****0004', 2],
    ]);
  });
});
