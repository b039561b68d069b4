import type { DataSource } from 'typeorm';
import { createSilentLogger, openDatabase, type Bus, type BusEvent } from '@aigw/platform';
import { waitFor, type Backend, type TestEnvironment } from '@aigw/platform/testing';
import { ROOT_PASSWORD, startGateway, type Session, type TestGateway } from '../../../gateway/test/support/gateway';
import { DeliveryEntity } from '../../src/entities/index';
import { notifierEntities } from '../../src/entities/index';
import { notifierMigrations } from '../../src/migrations/index';
import { createSmtpReceiver, type ReceivedMail, type SmtpReceiver } from './smtp-receiver';

export const SMTP = { account: 'mailer@example.com', token: 'smtp-secret-token-1', from: 'noreply@example.com' };
export const SERVER_ADDRESS = 'https://gw.example.com';

/** A second connection to the notifier's tables, to check the delivery records. */
export function openNotifierDatabase(env: TestEnvironment): Promise<DataSource> {
  return openDatabase({
    url: env.databaseUrl,
    dataDir: env.dataDir,
    schema: env.schema('notifier'),
    entities: notifierEntities,
    migrations: notifierMigrations,
    logger: createSilentLogger(),
  });
}

/**
 * Sets options as root, one call each, and waits until the mirrors of the notifier, billing and
 * channels show the last of them. Options reach a mirror in order, and a secret (fetched by
 * request) before the next event: the last non-secret key mirrored means every earlier one is too.
 */
export async function setOptions(gateway: TestGateway, root: Session, values: Record<string, unknown>): Promise<void> {
  const entries = Object.entries(values);
  for (const [key, value] of entries) {
    const answer = (await gateway.call('PUT', '/api/option/', { session: root, body: { key, value } })).json();
    if (!answer.success) throw new Error(`option ${key} not set: ${answer.message}`);
  }
  const [lastKey, lastValue] = entries.filter(([key]) => key !== 'SMTPToken').at(-1) ?? [];
  if (!lastKey) return;
  for (const service of ['notifier', 'billing', 'channels']) {
    await waitFor(
      async () => {
        const mirrored = (await gateway.call('GET', `/internal/${service}/options`, { session: root })).json().data[lastKey];
        return String(mirrored) === String(lastValue);
      },
      5_000,
      `${lastKey} mirrored by ${service}`,
    );
  }
}

/**
 * Points SMTP at the receiver (the token first: it is a secret, fetched by the mirrors on change).
 * The receiver is on loopback, which the egress policy refuses unless root allows private SMTP
 * servers: the switch comes before the server, whose save it governs.
 */
export function smtpOptions(port: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    SMTPToken: SMTP.token,
    AllowPrivateNetworkSmtp: true,
    SMTPServer: '127.0.0.1',
    SMTPAccount: SMTP.account,
    SMTPFrom: SMTP.from,
    SMTPSSLEnabled: false,
    ServerAddress: SERVER_ADDRESS,
    ...extra,
    SMTPPort: port,
  };
}

/** Collects the events of a subject from now on (a per-instance subscription). */
export async function collectEvents(bus: Bus, subject: string): Promise<BusEvent[]> {
  const events: BusEvent[] = [];
  await bus.subscribe(subject, async (event) => void events.push(event), {});
  return events;
}

export interface MailWorld {
  gateway: TestGateway;
  root: Session;
  receiver: SmtpReceiver;
  db: DataSource;
  /** The mail deliveries recorded so far, oldest first. */
  deliveries(): Promise<DeliveryEntity[]>;
  /** Mails to one address. */
  mailsTo(address: string): ReceivedMail[];
  close(): Promise<void>;
}

/**
 * The all-in-one gateway (every service: identity sends the requests, billing and channels the
 * causes), a real SMTP receiver on loopback, and root signed in. SMTP is configured unless
 * `configure` is false; the receiver is started unless `listen` is false.
 */
export async function startMailWorld(
  backend: Backend,
  options: { env?: Record<string, string>; configure?: boolean; listen?: boolean } = {},
): Promise<MailWorld> {
  const receiver = await createSmtpReceiver();
  if (options.listen !== false) await receiver.start();
  const gateway = await startGateway(backend, options.env);
  const root = await gateway.login('root', ROOT_PASSWORD);
  if (options.configure !== false) await setOptions(gateway, root, smtpOptions(receiver.port));
  const db = await openNotifierDatabase(gateway.env);
  return {
    gateway,
    root,
    receiver,
    db,
    deliveries: () => db.getRepository(DeliveryEntity).find({ where: { kind: 'mail' }, order: { id: 'ASC' } }),
    mailsTo: (address) => receiver.mails.filter((mail) => mail.to.includes(address)),
    async close() {
      await db.destroy();
      await gateway.close();
      await receiver.stop();
    },
  };
}
