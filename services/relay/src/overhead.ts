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

  /** `arrivedAt`: the request's arrival on performance.now()'s scale. */
  constructor(private readonly arrivedAt: number) {}

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
    return Math.max(0, performance.now() - this.arrivedAt - this.upstreamMs).toFixed(2);
  }
}

/**
 * Clocks by reply. A value here must not reach its key: V8's young-generation GC keeps a WeakMap's
 * values alive (keys stay weak), so a clock holding its reply kept every request's whole object
 * graph past the scavenges, promoted it to the old generation and left it to the next full GC
 * (about a fifth of the relay's allocation: the scavenges' pauses and the RSS sawtooth).
 */
const clocks = new WeakMap<FastifyReply, OverheadClock>();

/** The request's clock, made on first use; it starts at the request's arrival, as Fastify's elapsed time does. */
export function overheadOf(reply: FastifyReply): OverheadClock {
  let clock = clocks.get(reply);
  if (!clock) {
    clock = new OverheadClock(performance.now() - reply.elapsedTime);
    clocks.set(reply, clock);
  }
  return clock;
}
