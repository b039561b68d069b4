import { Writable } from 'node:stream';
import { createLogger, scrubSecrets } from '../src/logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', service: 'test' }, stream), lines };
}

describe('logger redaction', () => {
  const key = `sk-${'a1B2c3D4'.repeat(6)}`;

  it('redacts credential headers and secret fields by path', () => {
    const { logger, lines } = capture();
    logger.info(
      { req: { headers: { authorization: `Bearer ${key}`, cookie: 'session=abc', 'x-api-key': key } }, body: { password: 'hunter22', key: 'channel-key' } },
      'incoming',
    );
    const line = lines.join('');
    expect(line).not.toContain('a1B2c3D4a1B2');
    expect(line).not.toContain('hunter22');
    expect(line).not.toContain('channel-key');
    expect(line).not.toContain('session=abc');
    expect(line).toContain('[redacted]');
  });

  it('scrubs sk- keys and bearer credentials from messages and errors, whatever their length', () => {
    const { logger, lines } = capture();
    logger.warn(`token ${key} refused`);
    logger.error({ err: new Error(`upstream said: Bearer ${'z'.repeat(20)} invalid for ${key}`) }, 'upstream failed');
    const text = lines.join('');
    expect(text).not.toContain('a1B2c3D4a1B2');
    expect(text).not.toContain('z'.repeat(20));
    expect(text).toContain('sk-a1B2c3***');
  });

  it('leaves ordinary text alone', () => {
    expect(scrubSecrets('skip the sk- prefix talk; task-42 done')).toBe('skip the sk- prefix talk; task-42 done');
  });
});
