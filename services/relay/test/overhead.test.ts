// The x-aigw-overhead-ms answer header (issue 16 item 7): the time a request spent in the gateway
// apart from waiting for the upstream, on whole answers and on streams (taken when their headers
// go out), so users can check the relay's overhead on their own traffic.
import { startRelayWorld, type RelayWorld } from './support/relay-world';

jest.setTimeout(60_000);

let world: RelayWorld;

beforeAll(async () => {
  world = await startRelayWorld('in-process');
  // The upstream takes 400 ms to its headers: time the header must not count.
  await world.addChannel({ name: 'slow', models: 'mock-late', model_mapping: JSON.stringify({ 'mock-late': 'mock-gpt@latency=400' }) });
  await world.waitForModel('mock-late');
});
afterAll(async () => {
  await world?.close();
});

const chat = async (stream: boolean) => {
  const started = performance.now();
  const response = await fetch(`${world.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${world.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-late', stream, messages: [{ role: 'user', content: 'how long do you take?' }] }),
  });
  await response.text();
  return { response, totalMs: performance.now() - started };
};

it.each([false, true])('says how long the gateway took, the upstream wait excluded (stream: %s)', async (stream) => {
  const { response, totalMs } = await chat(stream);
  expect(response.status).toBe(200);
  const header = response.headers.get('x-aigw-overhead-ms');
  expect(header).toMatch(/^\d+\.\d{2}$/);
  const overhead = Number(header);
  expect(totalMs).toBeGreaterThan(400);
  // Well below the upstream's 400 ms: only the gateway's own part is in it.
  expect(overhead).toBeLessThan(totalMs - 350);
  expect(overhead).toBeGreaterThan(0);
  expect(response.headers.get('access-control-expose-headers')).toMatch(/X-Aigw-Overhead-Ms/i);
});
