import { pino, type Logger, type LoggerOptions } from 'pino';
import { traceIds, tracingEnabled } from './tracing/tracing.js';

export type { Logger } from 'pino';

/**
 * Field paths that never reach a log line. Values that look like secrets anywhere else are
 * caught by `scrubSecrets` (redaction by pattern, not by length: rule R5).
 */
const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers["mj-api-secret"]',
  'req.headers["x-aigw-signature"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.password2',
  '*.original_password',
  '*.key',
  '*.access_token',
  '*.token',
  '*.secret',
  // A config object logged whole (or under a key) never shows the bus password.
  'NATS_PASSWORD',
  '*.NATS_PASSWORD',
];

/** sk- API keys, bearer credentials and long hex/base64 secrets in free text. */
const secretPattern = /\b(sk-[A-Za-z0-9_-]{6})[A-Za-z0-9_-]+|(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g;

/** Replaces secret-looking substrings of a string; everything else is kept. */
export function scrubSecrets(text: string): string {
  return text.replace(secretPattern, (_match, skHead: string | undefined, bearer: string | undefined) => (skHead ? `${skHead}***` : `${bearer}***`));
}

export interface LoggerConfig {
  level: string;
  /** Name of the service, stamped on every line. */
  service: string;
}

export function createLogger(config: LoggerConfig, destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    level: config.level,
    base: { service: config.service },
    // With tracing on, each line names the trace and span it was written in.
    ...(tracingEnabled() ? { mixin: traceIds } : {}),
    redact: { paths: redactPaths, censor: '[redacted]' },
    hooks: {
      logMethod(args, method) {
        // Scrub the message strings; structured fields are covered by the redact paths.
        const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubSecrets(arg) : arg));
        method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
    serializers: {
      err: (error: unknown) => {
        const serialized = pino.stdSerializers.err(error as Error);
        if (serialized && typeof serialized.message === 'string') serialized.message = scrubSecrets(serialized.message);
        if (serialized && typeof serialized.stack === 'string') serialized.stack = scrubSecrets(serialized.stack);
        return serialized;
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger (Fastify's `request.log`), made into a pino child only when a line is written
 * at an enabled level. pino's child() passes its bindings through the redaction on creation,
 * about 1.5% of the all-in-one relay's work per request, for a logger that almost never writes.
 */
export class RequestLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly childBindings: pino.Bindings,
    private readonly childOptions: pino.ChildLoggerOptions,
  ) {}

  private get logger(): Logger {
    return (this.made ??= this.parent.child(this.childBindings, this.childOptions));
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(): void {}

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.logger.child(bindings, options);
  }

  bindings(): pino.Bindings {
    return this.logger.bindings();
  }

  private write(level: LogLevel, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const logger = this.logger;
    logger[level](...(args as Parameters<Logger[LogLevel]>));
  }
}

/** A logger that drops everything, for tests that do not look at logs. */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
