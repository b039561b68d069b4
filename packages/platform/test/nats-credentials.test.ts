// A service's NATS user and password (deploy/nats/authorization.conf): read by every service's
// config, in pairs, the password from a mounted file too, and never written to a log line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { baseConfigSchema, ConfigError, parseConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { serviceConfigSchema } from '../src/service-runner';

const schema = serviceConfigSchema(3004, {});
const base = { INTERNAL_SECRET: 's'.repeat(32) };

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseConfig(schema, { ...base, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('NATS credentials in the config', () => {
  it('are optional, for a server without users', () => {
    const config = parseConfig(schema, base);
    expect(config.NATS_USER).toBeUndefined();
    expect(config.NATS_PASSWORD).toBeUndefined();
  });

  it('come as a pair: a user without a password, or a password without a user, is refused at boot', () => {
    expect(parseConfig(schema, { ...base, NATS_USER: 'relay', NATS_PASSWORD: 'n0123' })).toMatchObject({ NATS_USER: 'relay', NATS_PASSWORD: 'n0123' });
    expect(problemsOf({ NATS_USER: 'relay' })).toEqual(['NATS_PASSWORD: set NATS_USER and NATS_PASSWORD together, or neither']);
    expect(problemsOf({ NATS_PASSWORD: 'n0123' })).toEqual(['NATS_USER: set NATS_USER and NATS_PASSWORD together, or neither']);
    expect(() => parseConfig(baseConfigSchema, { NATS_USER: 'relay' })).toThrow(ConfigError);
  });

  it('take the password from NATS_PASSWORD_FILE (a mounted secret)', () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-nats-password-'));
    try {
      const file = path.join(folder, 'password');
      fs.writeFileSync(file, 'n0fromafile\n');
      expect(parseConfig(schema, { ...base, NATS_USER: 'relay', NATS_PASSWORD_FILE: file })).toMatchObject({ NATS_PASSWORD: 'n0fromafile' });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('never log the password, whether a config is logged whole or under a key', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: 'info', service: 'test' }, stream);
    const config = parseConfig(schema, { ...base, NATS_USER: 'relay', NATS_PASSWORD: 'n0secretpassword' });
    logger.info(config, 'config');
    logger.info({ config }, 'nested');
    logger.info({ bus: { user: 'relay', password: 'n0secretpassword' } }, 'bus options');
    expect(lines).toHaveLength(3);
    expect(lines.join('')).not.toContain('n0secretpassword');
    expect(lines.join('')).toContain('"NATS_USER":"relay"');
  });
});
