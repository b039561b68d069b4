import type { DataSource } from 'typeorm';
import {
  decodeOptionValue,
  defaultOptionValues,
  encodeOptionValue,
  isOptionKey,
  isSecretOption,
  localizeMessage,
  msg,
  optionKeys,
  type OptionKey,
  type OptionRow,
  type OptionValues,
} from '@aigw/contracts';
import { EgressBlockedError, onEvent, param, queryRows, resolveEgressHost, UserError, type Bus, type Logger, type Subscription } from '@aigw/platform';
import { OptionEntity } from './entities/option.entity.js';
import { publishOptionUpdated } from './events.js';

/**
 * Identity owns the options. Values are cached in memory, typed; every replica applies the
 * `identity.option.updated` events (its own included) so all replicas agree.
 */
export interface OptionStore {
  get<K extends OptionKey>(key: K): OptionValues[K];
  /** Rows for GET /api/option/: every non-secret key, stored or default, in its string form. */
  publicRows(): OptionRow[];
  /** Every stored row with its version, secrets included (the internal snapshot request). */
  snapshot(): Promise<Array<{ key: string; value: string; version: number }>>;
  /** Validates, stores and publishes one option. */
  update(key: string, raw: unknown): Promise<void>;
  /** Restores the given keys to their defaults. */
  reset(keys: readonly OptionKey[]): Promise<void>;
  close(): Promise<void>;
}

export async function createOptionStore(db: DataSource, bus: Bus, logger: Logger): Promise<OptionStore> {
  const repository = db.getRepository(OptionEntity);
  const values = defaultOptionValues() as Record<OptionKey, unknown>;
  const versions = new Map<string, number>();

  const apply = (key: string, raw: string, version: number): void => {
    if (!isOptionKey(key) || (versions.get(key) ?? 0) >= version) return;
    const decoded = decodeOptionValue(key, raw);
    if (!decoded.ok) {
      logger.warn({ key }, `stored option ignored: ${localizeMessage(decoded.message, 'en-US')}`);
      return;
    }
    values[key] = decoded.value;
    versions.set(key, version);
  };

  for (const row of await repository.find()) apply(row.key, row.value, row.version);

  // Other replicas' writes; secrets arrive without a value and are read from the database.
  const subscription: Subscription = await onEvent(
    bus,
    'identity.option.updated',
    async (payload) => {
      if (payload.value !== null) return apply(payload.key, payload.value, payload.version);
      const row = await repository.findOneBy({ key: payload.key });
      if (row) apply(row.key, row.value, row.version);
    },
    { logger },
  );

  const write = async (key: OptionKey, value: unknown): Promise<void> => {
    const encoded = encodeOptionValue(key, value);
    // One atomic statement, so concurrent writers on several replicas never reuse a version.
    const rows = await queryRows<{ version: number | string }>(
      db,
      `INSERT INTO options ("key", "value", "version") VALUES (${param(db, 1)}, ${param(db, 2)}, 1)
       ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value", "version" = options."version" + 1
       RETURNING "version"`,
      [key, encoded],
    );
    const version = Number(rows[0]?.version);
    apply(key, encoded, version);
    await publishOptionUpdated(bus, { key, value: isSecretOption(key) ? null : encoded, secret: isSecretOption(key), version });
  };

  return {
    get: (key) => values[key] as OptionValues[typeof key],
    publicRows: () => optionKeys.filter((key) => !isSecretOption(key)).map((key) => ({ key, value: encodeOptionValue(key, values[key]) })),
    snapshot: async () => (await repository.find()).map(({ key, value, version }) => ({ key, value, version })),
    async update(key, raw) {
      if (!isOptionKey(key)) throw new UserError(`key: ${msg('options.unknown_key', { key })}`, 'invalid_request', 200, 'key');
      const decoded = decodeOptionValue(key, raw);
      if (!decoded.ok) throw new UserError(decoded.message, 'invalid_request', 200, key);
      checkPrerequisites(key, decoded.value, (other) => values[other]);
      await checkDestination(key, decoded.value, (other) => values[other]);
      await write(key, decoded.value);
    },
    async reset(keys) {
      const defaults = defaultOptionValues();
      for (const key of keys) await write(key, defaults[key]);
    },
    close: () => subscription.unsubscribe(),
  };
}

/**
 * Switching a login method on needs its configuration first (docs/product.md section 5); email
 * verification needs a mail server, which cannot go while verification is on (a code that can
 * never arrive would close registration).
 */
function checkPrerequisites(key: OptionKey, value: unknown, current: (key: OptionKey) => unknown): void {
  if (key === 'SMTPServer' && value === '' && current('EmailVerificationEnabled') === true) {
    throw new UserError(`SMTPServer: ${msg('options.smtp_in_use')}`, 'invalid_request', 200, 'SMTPServer');
  }
  if (value !== true) return;
  const needs: Partial<Record<OptionKey, OptionKey[]>> = {
    EmailVerificationEnabled: ['SMTPServer'],
    GitHubOAuthEnabled: ['GitHubClientId', 'GitHubClientSecret'],
    LinuxDOOAuthEnabled: ['LinuxDOClientId', 'LinuxDOClientSecret'],
    WeChatAuthEnabled: ['WeChatServerAddress', 'WeChatServerToken'],
    TurnstileCheckEnabled: ['TurnstileSiteKey', 'TurnstileSecretKey'],
    TelegramOAuthEnabled: ['TelegramBotName', 'TelegramBotToken'],
    'oidc.enabled': ['oidc.client_id', 'oidc.client_secret', 'oidc.authorization_endpoint', 'oidc.token_endpoint', 'oidc.user_info_endpoint'],
  };
  const missing = (needs[key] ?? []).filter((required) => !current(required));
  if (missing.length) throw new UserError(`${key}: ${msg('options.set_first', { keys: missing.join(', ') })}`, 'invalid_request', 200, key);
}

/**
 * The SMTP server passes the egress address policy when saved (rule R1): a host with a loopback,
 * private or link-local address is refused unless AllowPrivateNetworkSmtp is on. A name that does
 * not resolve now is saved (DNS may be away); the mailer checks again on every connection.
 */
async function checkDestination(key: OptionKey, value: unknown, current: (key: OptionKey) => unknown): Promise<void> {
  if (key !== 'SMTPServer' || typeof value !== 'string' || !value) return;
  try {
    await resolveEgressHost(value, {
      allowPrivateNetwork: current('AllowPrivateNetworkSmtp') === true,
      refusal: msg('options.private_smtp_off'),
    });
  } catch (error) {
    if (error instanceof EgressBlockedError) throw new UserError(`SMTPServer: ${error.message}`);
    // Not resolvable now: the connection-time check decides.
  }
}
