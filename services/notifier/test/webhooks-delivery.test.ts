import { createHmac, timingSafeEqual } from 'node:crypto';
import { eventExamples } from '@aigw/contracts';
import { publishEvent, type BusEvent } from '@aigw/platform';
import { backends, waitFor } from '@aigw/platform/testing';
import { DeliveryEntity } from '../src/entities/index';
import { collectEvents, startReceiver, startWebhookWorld, type ReceivedCall, type Receiver, type WebhookWorld } from './support/webhooks';

/** What an integrator does with a call: recompute the signature from the raw body and compare in constant time. */
function verifies(call: ReceivedCall, secret: string): boolean {
  const timestamp = String(call.headers['x-webhook-timestamp']);
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${call.body}`).digest('hex')}`);
  const given = Buffer.from(String(call.headers['x-webhook-signature']));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

describe.each(backends)('webhook delivery (%s)', (backend) => {
  let world: WebhookWorld;
  let receiver: Receiver;
  let failures: BusEvent[];

  beforeAll(async () => {
    receiver = await startReceiver({ '/flaky': 'fail:1', '/hang': 'hang', '/moved': 'redirect' });
    world = await startWebhookWorld(backend, { allowPrivate: true });
    failures = await collectEvents(world.gateway.env.infra.bus, 'notifier.delivery.failed');
  });
  afterAll(async () => {
    await world?.close();
    await receiver?.close();
  });

  async function register(path: string, subjects: string[], extra: Record<string, unknown> = {}): Promise<{ id: number; secret: string }> {
    const answer = (await world.gateway.call('POST', '/api/webhook/', { session: world.root, body: { url: receiver.url(path), subjects, ...extra } })).json();
    if (!answer.success) throw new Error(`endpoint not created: ${answer.message}`);
    return answer.data;
  }

  const deliveryOf = (eventId: string, path: string) =>
    world.db.getRepository(DeliveryEntity).findOneBy({ kind: 'webhook', dedupe_key: eventId, target: receiver.url(path) });

  it('delivers a signed relay.usage.recorded that verifies with the secret shown at creation', async () => {
    const { id, secret } = await register('/usage', ['relay.usage.recorded']);
    const event = await publishEvent(world.gateway.env.infra.bus, 'relay.usage.recorded', {
      ...eventExamples['relay.usage.recorded'],
      request_id: `req-${backend}-signed`,
    });

    await waitFor(() => receiver.on('/usage').length > 0, 10_000, 'the webhook call');
    const [call] = receiver.on('/usage') as [ReceivedCall];
    expect(verifies(call, secret)).toBe(true);
    expect(verifies(call, `${secret}x`)).toBe(false);
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers['x-webhook-id']).toBe(event.id);
    expect(call.headers['x-webhook-subject']).toBe('relay.usage.recorded');
    expect(Math.abs(Number(call.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(JSON.parse(call.body)).toEqual({
      id: event.id,
      subject: 'relay.usage.recorded',
      time: event.time,
      data: expect.objectContaining({ request_id: `req-${backend}-signed`, quota: 1134 }),
    });

    await waitFor(async () => (await deliveryOf(event.id, '/usage'))?.status === 'sent', 5_000, 'the delivery recorded as sent');
    expect(await deliveryOf(event.id, '/usage')).toMatchObject({
      webhook_id: id,
      topic: 'relay.usage.recorded',
      attempts: 1,
      response_status: 200,
      last_error: '',
    });
  });

  it('sends only what an enabled endpoint filter matches', async () => {
    await register('/filtered', ['billing.>', '*.channel.disabled']);
    await register('/off', ['>'], { enabled: false });
    const bus = world.gateway.env.infra.bus;
    const published = [
      await publishEvent(bus, 'identity.user.deleted', { user_id: 4242 }),
      await publishEvent(bus, 'billing.account.updated', { ...eventExamples['billing.account.updated'], user_id: 4242 }),
      await publishEvent(bus, 'channels.channel.disabled', { ...eventExamples['channels.channel.disabled'], channel_id: 4242 }),
      await publishEvent(bus, 'channels.channel.deleted', { id: 4242 }),
      await publishEvent(bus, 'billing.token.deleted', { ...eventExamples['billing.token.deleted'], token_id: 4242 }),
    ];
    await waitFor(() => receiver.on('/filtered').length >= 3, 10_000, 'the matching events');
    // A marker published last: once it arrived, anything wrongly matched would have too.
    const marker = await publishEvent(bus, 'billing.account.updated', { ...eventExamples['billing.account.updated'], user_id: 4343 });
    await waitFor(() => receiver.on('/filtered').some((call) => call.headers['x-webhook-id'] === marker.id), 10_000, 'the marker');

    const subjects = receiver
      .on('/filtered')
      .map((call) => call.headers['x-webhook-subject'])
      .sort();
    expect(subjects).toEqual(['billing.account.updated', 'billing.account.updated', 'billing.token.deleted', 'channels.channel.disabled']);
    expect(receiver.on('/filtered').map((call) => call.headers['x-webhook-id'])).not.toContain(published[0]!.id);
    expect(receiver.on('/off')).toEqual([]);
  });

  it('retries an endpoint answering 500, with the same id and body, until it answers 200', async () => {
    const { secret } = await register('/flaky', ['identity.user.deleted']);
    const event = await publishEvent(world.gateway.env.infra.bus, 'identity.user.deleted', { user_id: 777 });

    await waitFor(async () => (await deliveryOf(event.id, '/flaky'))?.status === 'sent', 10_000, 'the retried delivery sent');
    const calls = receiver.on('/flaky');
    expect(calls).toHaveLength(2);
    expect(calls.map((call) => call.headers['x-webhook-id'])).toEqual([event.id, event.id]);
    expect(calls[1]!.body).toBe(calls[0]!.body);
    expect(calls.every((call) => verifies(call, secret))).toBe(true);
    expect(await deliveryOf(event.id, '/flaky')).toMatchObject({ attempts: 2, response_status: 200, last_error: '' });
  });

  it('times a hanging endpoint out, retries it a bounded number of times and fails it, while other events keep flowing', async () => {
    await register('/hang', ['relay.channel.succeeded']);
    await register('/beside', ['relay.channel.succeeded']);
    const bus = world.gateway.env.infra.bus;
    const stuck = await publishEvent(bus, 'relay.channel.succeeded', { channel_id: 9001, response_time_ms: 5, test: false });
    await waitFor(() => receiver.on('/hang').length === 1, 10_000, 'the first hanging call');

    // While the endpoint hangs (and waits for its retries), later events reach the other endpoint.
    const later = await Promise.all(
      [1, 2, 3].map((n) => publishEvent(bus, 'relay.channel.succeeded', { channel_id: 9001 + n, response_time_ms: 5, test: false })),
    );
    const arrived = () => later.map((event) => receiver.on('/beside').find((call) => call.headers['x-webhook-id'] === event.id));
    await waitFor(() => arrived().every(Boolean), 10_000, 'later events beside the hanging one');

    await waitFor(async () => (await deliveryOf(stuck.id, '/hang'))?.status === 'failed', 15_000, 'the hanging delivery failed');
    const failed = await deliveryOf(stuck.id, '/hang');
    expect(failed).toMatchObject({ attempts: 3, response_status: 0, last_error: 'no complete answer within 600 ms' });
    const hangs = receiver.on('/hang').filter((call) => call.headers['x-webhook-id'] === stuck.id);
    expect(hangs).toHaveLength(3);
    // The later events did not wait for the hanging delivery's retries.
    expect(Math.max(...arrived().map((call) => call!.at))).toBeLessThan(hangs[2]!.at);

    await waitFor(() => failures.some((event) => (event.data as { delivery_id: number }).delivery_id === failed!.id), 5_000, 'notifier.delivery.failed');
    expect(failures.find((event) => (event.data as { delivery_id: number }).delivery_id === failed!.id)?.data).toEqual({
      kind: 'webhook',
      delivery_id: failed!.id,
      target: receiver.url('/hang'),
      topic: 'relay.channel.succeeded',
      attempts: 3,
      error: 'no complete answer within 600 ms',
    });
    // Root sees it among the failed deliveries.
    const listed = (await world.gateway.call('GET', '/api/webhook/deliveries?kind=webhook&status=failed&p=1&page_size=10', { session: world.root })).json();
    expect(listed.data.items.map((item: { id: number }) => item.id)).toContain(failed!.id);
  });

  it('does not follow a redirect: the 3xx is a failure', async () => {
    await register('/moved', ['channels.channel.deleted']);
    const event = await publishEvent(world.gateway.env.infra.bus, 'channels.channel.deleted', { id: 5151 });
    await waitFor(async () => (await deliveryOf(event.id, '/moved'))?.status === 'failed', 10_000, 'the redirected delivery failed');
    expect(await deliveryOf(event.id, '/moved')).toMatchObject({ attempts: 3, response_status: 302, last_error: 'HTTP 302 (redirects are not followed)' });
  });
});
