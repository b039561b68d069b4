// One owner per config (issue 20.4): each service declares its env fields once, its main.ts reads
// them through that declaration, and the all-in-one gateway composes the same declarations, so
// a variable a standalone service takes is one the all-in-one process takes too, with the same
// bounds, and the README documents every one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { serviceConfigSchema } from '@aigw/platform';
import { billingConfigShape } from '@aigw/billing/plugin';
import { channelsConfigShape, channelsSettings } from '@aigw/channels/plugin';
import { identityConfigShape, identitySettings } from '@aigw/identity/plugin';
import { notifierConfigShape } from '@aigw/notifier/plugin';
import { relayConfigShape, relaySettings } from '@aigw/relay/plugin';
import { gatewayConfigSchema, generatedSecretFiles, servicesConfigShape, withGeneratedSecrets } from '../src/config';

const repositoryRoot = path.resolve(__dirname, '../../..');

const services = {
  identity: { shape: identityConfigShape, shapeName: 'identityConfigShape' },
  billing: { shape: billingConfigShape, shapeName: 'billingConfigShape' },
  channels: { shape: channelsConfigShape, shapeName: 'channelsConfigShape' },
  relay: { shape: relayConfigShape, shapeName: 'relayConfigShape' },
  notifier: { shape: notifierConfigShape, shapeName: 'notifierConfigShape' },
};

const gatewayFields: Record<string, z.ZodType> = gatewayConfigSchema.shape;

/** Every `NAME` in the first column of the table under the README's "## Environment". */
function readmeVariables(): Set<string> {
  const readme = fs.readFileSync(path.join(repositoryRoot, 'README.md'), 'utf8');
  const lines = readme.slice(readme.indexOf('\n## Environment')).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  const firstColumns = lines.slice(start, end === -1 ? undefined : end).map((row) => row.split('|')[1] ?? '');
  return new Set(firstColumns.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!)));
}

describe('config: one declaration per service, composed by the gateway', () => {
  it.each(Object.entries(services))('%s main.ts reads its config through the exported shape alone', (name, { shapeName }) => {
    const source = fs.readFileSync(path.join(repositoryRoot, 'services', name, 'src', 'main.ts'), 'utf8');
    expect(source).toMatch(new RegExp(`loadConfig\\(serviceConfigSchema\\(\\d+, ${shapeName}\\)\\)`));
    expect(source).not.toMatch(/process\.env/);
  });

  it.each(Object.entries(services))('every variable %s reads standalone is one the all-in-one gateway reads, with the same bounds', (_name, { shape }) => {
    const standalone: Record<string, z.ZodType> = serviceConfigSchema(0, shape).shape;
    for (const variable of Object.keys(standalone)) expect(gatewayFields).toHaveProperty([variable]);
    for (const [variable, field] of Object.entries(shape as Record<string, z.ZodType>)) {
      const composed = gatewayFields[variable]!;
      // The same schema object, or (a key secret, generated when unset) that schema made optional.
      const same = composed === field || (variable in generatedSecretFiles && composed instanceof z.ZodOptional && composed.unwrap() === field);
      expect({ variable, same }).toEqual({ variable, same: true });
    }
  });

  it('no two services declare the same variable (one would silently win all-in-one)', () => {
    const declared = Object.values(services).flatMap(({ shape }) => Object.keys(shape));
    expect(declared.length).toBe(Object.keys(servicesConfigShape).length);
  });

  it('all-in-one, the service tunables reach the plugins (upstream timeouts, step-up window, schedule minute)', () => {
    const config = gatewayConfigSchema.parse({
      UPSTREAM_CONNECT_TIMEOUT_MS: '1234',
      UPSTREAM_HEADERS_TIMEOUT_MS: '5678',
      UPSTREAM_ANSWER_TIMEOUT_MS: '9012',
      UPSTREAM_CONNECTIONS_PER_ORIGIN: '24',
      STREAMING_TIMEOUT_MS: '3456',
      STEP_UP_TTL_MS: '7000',
      SCHEDULE_MINUTE_MS: '500',
      INITIAL_ROOT_PASSWORD: 'a-root-password',
      TWO_FACTOR_KEY_SECRET: 'x'.repeat(32),
      CHANNEL_KEY_SECRET: 'y'.repeat(32),
    });
    expect(relaySettings(config).limits).toMatchObject({
      connectTimeoutMs: 1234,
      headersTimeoutMs: 5678,
      answerTimeoutMs: 9012,
      connectionsPerOrigin: 24,
      streamIdleTimeoutMs: 3456,
    });
    expect(identitySettings({ ...config, TWO_FACTOR_KEY_SECRET: config.TWO_FACTOR_KEY_SECRET! })).toEqual({
      initialRootPassword: 'a-root-password',
      twoFactorKeySecret: 'x'.repeat(32),
      stepUpTtlMs: 7000,
    });
    expect(channelsSettings({ ...config, CHANNEL_KEY_SECRET: config.CHANNEL_KEY_SECRET! })).toEqual({ keySecret: 'y'.repeat(32), scheduleMinuteMs: 500 });
  });

  it('all-in-one, a key secret left unset is generated once under DATA_DIR/secrets; a set one is used as it is', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-config-'));
    try {
      const config = gatewayConfigSchema.parse({ DATA_DIR: dataDir, TOKEN_KEY_SECRET: 't'.repeat(40) });
      const first = withGeneratedSecrets(config);
      expect(first.TOKEN_KEY_SECRET).toBe('t'.repeat(40));
      for (const name of ['CHANNEL_KEY_SECRET', 'NOTIFIER_KEY_SECRET', 'TWO_FACTOR_KEY_SECRET'] as const) expect(first[name].length).toBeGreaterThanOrEqual(32);
      expect(withGeneratedSecrets(config)).toEqual(first);
      expect(fs.readdirSync(path.join(dataDir, 'secrets')).sort()).toEqual(['channel-key', 'notifier-key', 'two-factor-key']);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a bad service value is refused all-in-one as the service refuses it', () => {
    expect(gatewayConfigSchema.safeParse({ TWO_FACTOR_KEY_SECRET: 'short' }).error?.issues[0]?.message).toBe(
      'TWO_FACTOR_KEY_SECRET must be at least 32 characters',
    );
    expect(gatewayConfigSchema.safeParse({ HOLD_LEASE_TTL_MS: '10' }).success).toBe(false);
  });

  it("the README's Environment table lists every variable of the gateway and of each service", () => {
    const documented = readmeVariables();
    const variables = new Set([
      ...Object.keys(gatewayFields),
      ...Object.values(services).flatMap(({ shape }) => Object.keys(serviceConfigSchema(0, shape).shape)),
    ]);
    expect([...variables].filter((variable) => !documented.has(variable))).toEqual([]);
  });
});
