import type { FastifyReply } from 'fastify';

/** The answer header that says how long the gateway itself took (LiteLLM and MLflow expose the same figure). */
export const OVERHEAD_HEADER = 'x-aigw-overhead-ms';

/**
 * The time a request spends in the gateway, apart from waiting for upstreams: from its arrival
 * (Fastify's elapsed time, authentication and body parsing included) less every upstream wait
 * (connecting and the headers of each attempt, a whole answer's body, a polled job). A stream's
 * figure is taken when its headers go out: what the gateway added before the first byte. Users
 * check the relay's overhead on their own traffic with it.
 */
export class OverheadClock {
  private upstreamMs = 0;

  constructor(private readonly elapsedMs: () => number) {}

  /** Runs an upstream wait, its time counted as the upstream's. */
  async upstream<T>(wait: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await wait();
    } finally {
      this.upstreamMs += performance.now() - started;
    }
  }

  /** The header's value now, in milliseconds with two decimals. */
  value(): string {
    return Math.max(0, this.elapsedMs() - this.upstreamMs).toFixed(2);
  }
}

const clocks = new WeakMap<FastifyReply, OverheadClock>();

/** The request's clock, made on first use; its elapsed time is Fastify's, from the request's arrival. */
export function overheadOf(reply: FastifyReply): OverheadClock {
  let clock = clocks.get(reply);
  if (!clock) {
    clock = new OverheadClock(() => reply.elapsedTime);
    clocks.set(reply, clock);
  }
  return clock;
}
