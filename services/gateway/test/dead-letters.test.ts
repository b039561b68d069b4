import { connect } from 'nats';
import type { DeadLetterView, Page } from '@aigw/contracts';
import { testServices, waitFor } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from './support/gateway';

/**
 * The services' wiring of dead letters in the all-in-one process (docs/architecture.md section
 * 3.10): on one shared bus, an event every consumer of it fails on lands in the database of each
 * service whose consumer failed, and only there. A message no envelope parses is the failure
 * NATS can bring without touching a service's code (packages/platform/test/dead-letters.test.ts
 * poisons handlers on both backends).
 */
describe('dead letters of the composed services (real)', () => {
  let gateway: TestGateway;
  let root: Session;

  beforeAll(async () => {
    gateway = await startGateway('real');
    root = await gateway.login('root', ROOT_PASSWORD);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  const list = async (service: string) => {
    const answer = (await gateway.call('GET', `/api/dead_letter/${service}/`, { session: root })).json();
    expect(answer.success).toBe(true);
    return answer.data as Page<DeadLetterView>;
  };

  it("keeps a garbled relay.channel.failed in channels' and the notifier's dead letters, the services whose consumers read it", async () => {
    const nc = await connect({ servers: (await testServices()).natsUrl });
    await nc.jetstream().publish(`${gateway.env.namespace}.relay.channel.failed`, new TextEncoder().encode('{"channel_id": 3,'), { msgID: 'garbled-failure' });
    await nc.close();

    await waitFor(async () => (await list('channels')).total === 1 && (await list('notifier')).total === 1, 10_000, 'both dead letters');
    const [health] = (await list('channels')).items;
    expect(health).toMatchObject({ event_id: 'garbled-failure', subject: 'relay.channel.failed', consumer: 'channels-health', payload: '{"channel_id": 3,' });
    expect(health!.error).toMatch(/^undecodable event: /);
    expect((await list('notifier')).items[0]).toMatchObject({ event_id: 'garbled-failure', consumer: 'notifier-webhooks', pattern: 'relay.>' });
    for (const service of ['identity', 'billing', 'relay']) expect(await list(service)).toMatchObject({ total: 0, items: [] });

    // Replaying cannot decode it either: it stays, one attempt more; root deletes it.
    const replay = (await gateway.call('POST', `/api/dead_letter/channels/${health!.id}/replay`, { session: root })).json();
    expect(replay).toEqual({ success: false, message: expect.stringMatching(/^replay failed: undecodable event: /) });
    expect((await list('channels')).items[0]).toMatchObject({ id: health!.id, attempts: health!.attempts + 1 });
    expect((await gateway.call('DELETE', `/api/dead_letter/channels/${health!.id}`, { session: root })).json()).toEqual({ success: true, message: '' });
    // Gone: a Chinese console reads so in Chinese.
    const gone = await gateway.call('DELETE', `/api/dead_letter/channels/${health!.id}`, { session: root, headers: { 'accept-language': 'zh-CN' } });
    expect([gone.statusCode, gone.json()]).toEqual([404, { success: false, message: '死信不存在' }]);
    expect((await list('channels')).total).toBe(0);
  });
});
