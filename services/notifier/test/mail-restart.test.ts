// A notifier killed mid-queue (SIGKILL: no clean shutdown, a mail half-sent) and started again
// sends every mail exactly once: the queue is BullMQ on Redis, the records are in PostgreSQL, the
// requests come over NATS. The notifier runs in child processes (compiled dist/).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { publishEvent, replyTyped } from '@aigw/platform';
import { createTestEnvironment, waitFor, type TestEnvironment } from '@aigw/platform/testing';
import { DeliveryEntity } from '../src/entities/index';
import { openNotifierDatabase } from './support/mail-world';
import { createSmtpReceiver, type SmtpReceiver } from './support/smtp-receiver';

jest.setTimeout(60_000);

const workerScript = path.join(__dirname, 'support', 'mail-worker.mjs');
const compiledPlugin = path.join(__dirname, '..', 'dist', 'plugin.js');

let env: TestEnvironment;
let receiver: SmtpReceiver;
let db: DataSource;
const children = new Set<ChildProcess>();

/** Starts a notifier process on the test's namespace and waits until it consumes. */
async function startWorker(): Promise<ChildProcess> {
  const child = fork(workerScript, { env: { ...process.env, ...env.processEnv() }, execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  children.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  child.once('exit', () => children.delete(child));
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the notifier process exited (${code}) before it was ready: ${stderr}`)));
  });
  return child;
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

beforeAll(async () => {
  if (!fs.existsSync(compiledPlugin))
    throw new Error(`this test runs the compiled notifier: ${compiledPlugin} is missing (run \`npx tsc -b tsconfig.json\`; npm test does it in pretest)`);
  env = await createTestEnvironment('real');
  receiver = await createSmtpReceiver();
  await receiver.start();
  // Identity's part: the options the notifier loads at start (no identity runs here).
  const options = {
    AllowPrivateNetworkSmtp: 'true',
    SMTPServer: '127.0.0.1',
    SMTPPort: String(receiver.port),
    SMTPFrom: 'noreply@example.com',
    SystemName: 'Restart',
    ServerAddress: 'https://gw.example.com',
  };
  await replyTyped(env.infra.bus, 'identity.option.snapshot', async () => ({
    options: Object.entries(options).map(([key, value]) => ({ key, value, version: 1 })),
  }));
  db = await openNotifierDatabase(env);
});

afterAll(async () => {
  for (const child of [...children]) await stop(child, 'SIGKILL');
  await db?.destroy();
  await receiver?.stop();
  await env?.cleanup();
});

it('a notifier killed while a mail is in flight, then started again, sends every mail exactly once', async () => {
  const addresses = Array.from({ length: 6 }, (_, index) => `user${index + 1}@example.com`);
  // The server takes the first two and keeps the third waiting for its answer: that is when the process dies.
  receiver.holdWhen = (mail) => mail.to.includes(addresses[2]!);
  const first = await startWorker();
  for (const [index, to] of addresses.entries()) {
    await publishEvent(env.infra.bus, 'notifier.mail.requested', {
      to,
      template: 'verification_code',
      params: { code: `code${index + 1}`, minutes: '10', system_name: 'Restart' },
      locale: 'en-US',
    });
  }
  const deliveries = db.getRepository(DeliveryEntity);
  await waitFor(async () => (await deliveries.countBy({ kind: 'mail' })) === 6 && receiver.held.length === 1, 15_000, 'six mails queued, the third in flight');
  expect(receiver.mails.map((mail) => mail.to[0])).toEqual(addresses.slice(0, 2));

  await stop(first, 'SIGKILL');
  const killedAt = Date.now();
  expect((await deliveries.find({ order: { id: 'ASC' } })).map((row) => row.status)).toEqual(['sent', 'sent', 'pending', 'pending', 'pending', 'pending']);
  receiver.holdWhen = undefined;

  await startWorker();
  await receiver.waitForMails(6, 20_000);
  const recoveredMs = Date.now() - killedAt;
  await waitFor(async () => (await deliveries.countBy({ status: 'sent' })) === 6, 5_000, 'every row sent');
  // A fixed wait: only a run already under way when its row turned sent could still send a copy (a
  // later one finds the row sent), it would end within an SMTP exchange, and nothing marks its absence.
  await new Promise((resolve) => setTimeout(resolve, 500));

  // Each address once (the held copy was never accepted), each with its own code, all recorded sent.
  expect(receiver.mails.map((mail) => mail.to[0]).sort()).toEqual([...addresses].sort());
  expect(receiver.mails.map((mail) => /code(\d)/.exec(mail.text)?.[1]).sort()).toEqual(['1', '2', '3', '4', '5', '6']);
  expect(new Set(receiver.mails.map((mail) => mail.messageId)).size).toBe(6);
  expect(await deliveries.find({ order: { id: 'ASC' } })).toEqual(addresses.map((target) => expect.objectContaining({ target, status: 'sent', attempts: 1 })));
  expect(recoveredMs).toBeLessThan(15_000);
});
