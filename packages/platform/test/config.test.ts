import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, parseConfig } from '../src/config';
import { serviceConfigSchema } from '../src/service-runner';

describe('config', () => {
  const schema = serviceConfigSchema(3001, { EXTRA_LIMIT: z.coerce.number().int().positive() });

  it('parses with defaults', () => {
    const config = parseConfig(schema, { INTERNAL_SECRET: 's'.repeat(32), EXTRA_LIMIT: '5' });
    expect(config).toMatchObject({
      PORT: 3001,
      HOST: '0.0.0.0',
      LOG_LEVEL: 'info',
      DATA_DIR: './data',
      NAMESPACE: '',
      EXTRA_LIMIT: 5,
      HEAP_GROWING_PERCENT: 50,
    });
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('reports every problem at once, naming each variable', () => {
    let caught: unknown;
    try {
      parseConfig(schema, { INTERNAL_SECRET: 'short', PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'not a url', HEAP_GROWING_PERCENT: '-5' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
    for (const name of ['INTERNAL_SECRET', 'PORT', 'LOG_LEVEL', 'DATABASE_URL', 'EXTRA_LIMIT', 'HEAP_GROWING_PERCENT']) expect(problems).toContain(`${name}:`);
  });

  it('reads NAME_FILE for fields of the schema only', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-config-')), 'secret');
    fs.writeFileSync(file, `${'f'.repeat(40)}\n`);
    const config = parseConfig(schema, { INTERNAL_SECRET_FILE: file, EXTRA_LIMIT: '1', UNRELATED_FILE: '/does/not/exist' });
    expect(config.INTERNAL_SECRET).toBe('f'.repeat(40));
    expect(parseConfig(schema, { INTERNAL_SECRET: 'e'.repeat(32), INTERNAL_SECRET_FILE: file, EXTRA_LIMIT: '1' }).INTERNAL_SECRET).toBe('e'.repeat(32));
  });
});
