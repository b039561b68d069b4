// Support matches a user's complaint to a log row by the request id: the relay answers with it
// (X-Oneapi-Request-Id, streams included; refusals name it too) and the log API shows it on the
// consume log of that request, to the user and to admins.
import type { LogView, Page } from '@aigw/contracts';
import { waitFor } from '@aigw/platform/testing';
import { backends, startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

describe.each(backends)('request ids (%s)', (backend) => {
  let world: RelayWorld;

  beforeAll(async () => {
    world = await startRelayWorld(backend);
    await world.addChannel({ name: 'main', models: 'mock-gpt' });
    await world.waitForModel('mock-gpt');
  });
  afterAll(async () => {
    await world?.close();
  });

  const chat = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'mock-gpt', messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
  const logs = async (admin: boolean): Promise<LogView[]> => {
    const answer = (await world.gateway.call('GET', `/api/log/${admin ? '' : 'self'}?p=1&page_size=100`, { session: admin ? world.root : world.user })).json();
    expect(answer.success).toBe(true);
    return (answer.data as Page<LogView>).items;
  };

  it('names the id of every answer in the consume log of that request, for the user and for admins', async () => {
    const whole = await chat();
    expect(whole.status).toBe(200);
    await whole.json();
    const streamed = await chat({ stream: true });
    expect(streamed.status).toBe(200);
    await streamed.text();
    const ids = [whole.headers.get('x-oneapi-request-id'), streamed.headers.get('x-oneapi-request-id')];
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
    expect(ids[0]).not.toBe(ids[1]);

    await waitFor(async () => (await logs(false)).filter((row) => ids.includes(row.request_id)).length === 2, 10_000, 'both consume logs');
    const own = (await logs(false)).filter((row) => ids.includes(row.request_id));
    expect(own.map((row) => [row.request_id, row.is_stream]).sort()).toEqual(
      [
        [ids[0], false],
        [ids[1], true],
      ].sort(),
    );
    const all = await logs(true);
    expect(all.filter((row) => ids.includes(row.request_id))).toHaveLength(2);
    // Logs that no relayed request wrote (the admin's quota change) carry none.
    expect(all.filter((row) => row.type !== 2).every((row) => row.request_id === '')).toBe(true);
  });

  it('sends the id with refusals too, and never takes the client’s own', async () => {
    const refused = await fetch(`${world.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-unknown', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    const id = refused.headers.get('x-oneapi-request-id');
    expect(id).toBeTruthy();
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(`(request id: ${id})`);

    const chosen = await chat({}, { 'x-request-id': 'client-chosen-0001' });
    expect(chosen.status).toBe(200);
    await chosen.json();
    expect(chosen.headers.get('x-oneapi-request-id')).not.toBe('client-chosen-0001');
  });
});
