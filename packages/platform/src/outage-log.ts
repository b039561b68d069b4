/**
 * Warnings about a dependency that is away (a service, the bus, the database), at most one per
 * kind of outage per interval. During an outage every request fails the same way: one line a
 * second, with the number of failures left out since the previous line, says as much as a line
 * (and a stack) per request, without flooding the log or slowing the process down.
 */
/** Any logger with pino's object-first warn (a request's logger, the process's). */
export interface WarnLogger {
  warn(fields: object, message: string): void;
}

export interface OutageLog {
  /**
   * Warns about `kind` (`database`, `service relay`, `bus billing.token.resolve`...) unless it
   * was warned about less than an interval ago; then it is only counted, and the count goes
   * out as `suppressed` with the next warning of that kind.
   */
  report(logger: WarnLogger, kind: string, fields: Record<string, unknown>, message: string): void;
}

export interface OutageLogOptions {
  /** Least time between two warnings of one kind. Default 1000 ms. */
  intervalMs?: number;
  /** Kinds remembered at most (oldest forgotten first); kinds are few, this only bounds memory. */
  maxKinds?: number;
  /** The clock; tests pass their own. */
  now?: () => number;
}

export function createOutageLog(options: OutageLogOptions = {}): OutageLog {
  const intervalMs = options.intervalMs ?? 1_000;
  const maxKinds = options.maxKinds ?? 1_000;
  const now = options.now ?? Date.now;
  const kinds = new Map<string, { lastAt: number; suppressed: number }>();

  return {
    report(logger, kind, fields, message) {
      const at = now();
      const state = kinds.get(kind);
      if (state && at - state.lastAt < intervalMs) {
        state.suppressed += 1;
        return;
      }
      const suppressed = state?.suppressed ?? 0;
      kinds.delete(kind);
      if (kinds.size >= maxKinds) kinds.delete(kinds.keys().next().value!);
      kinds.set(kind, { lastAt: at, suppressed: 0 });
      logger.warn({ ...fields, outage: kind, suppressed }, message);
    },
  };
}

/** The process's outage log, for apps not made by createApp (which gives each app its own: `app.outageLog`). */
export const outageLog: OutageLog = createOutageLog();
