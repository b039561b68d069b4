import crypto from 'node:crypto';
import type { FaultUser, World } from './world';
import { faultModels } from './world';

/**
 * The load a fault scenario runs under: workers that send chat requests one after the other, from
 * the scenario's users and keys, half of them streamed. Each request's prompt carries a marker, so
 * the checks find every request that reached the mock upstream whatever happened to its answer.
 */

/** Where a client gives up on purpose (the scenario of disconnects at every phase of a stream). */
export type LeavePhase = 'before-headers' | 'after-headers' | 'mid-stream' | 'before-end';

export interface SentRequest {
  marker: string;
  userId: number;
  stream: boolean;
  model: string;
  startedAt: number;
  endedAt: number;
  /** The HTTP status, or 0 when no answer came (the connection was reset or refused). */
  status: number;
  requestId: string | null;
  /** The error code of a refusal (`usage_spool_full`, ...). */
  code?: string;
  /** The answer arrived in full (a stream to its end). */
  complete: boolean;
  /** The client left on purpose at this phase. */
  left?: LeavePhase;
}

export interface LoadOptions {
  workers: number;
  /** The model each request asks for (default: the normal chat). */
  model?: () => string;
  /** Where a request's client leaves, if it does. */
  leave?: () => LeavePhase | undefined;
  /** Per-request deadline of the client. */
  timeoutMs?: number;
}

export interface Load {
  readonly sent: SentRequest[];
  /** Requests started and not yet ended. */
  inFlight(): number;
  /** Stops starting requests and waits for those in flight. */
  stop(): Promise<SentRequest[]>;
}

async function send(
  world: World,
  user: FaultUser,
  key: string,
  model: string,
  stream: boolean,
  leave: LeavePhase | undefined,
  timeoutMs: number,
): Promise<SentRequest> {
  const marker = `fault-${crypto.randomBytes(8).toString('hex')}`;
  const startedAt = Date.now();
  const sent: SentRequest = {
    marker,
    userId: user.id,
    stream,
    model,
    startedAt,
    endedAt: 0,
    status: 0,
    requestId: null,
    complete: false,
    ...(leave ? { left: leave } : {}),
  };
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const fetching = fetch(`${world.gatewayUrl()}/v1/chat/completions`, {
      method: 'POST',
      signal: controller.signal,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: `answer at length (${marker})` }] }),
    });
    if (leave === 'before-headers') {
      // Long enough for the request to reach the relay and the upstream, not for the headers of a stream.
      setTimeout(() => controller.abort(), 15);
    }
    const response = await fetching;
    sent.status = response.status;
    sent.requestId = response.headers.get('x-oneapi-request-id');
    if (leave === 'after-headers') {
      controller.abort();
      return sent;
    }
    if (!stream || response.status !== 200) {
      const text = await response.text();
      sent.complete = response.status === 200;
      if (!sent.complete) sent.code = /"code":"([^"]*)"/.exec(text)?.[1];
      return sent;
    }
    const reader: ReadableStreamDefaultReader<Uint8Array> = response.body!.getReader();
    const decoder = new TextDecoder();
    let events = 0;
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      events += (chunk.match(/^data: /gm) ?? []).length;
      if ((leave === 'mid-stream' && events >= 8) || (leave === 'before-end' && events >= 38)) {
        controller.abort();
        return sent;
      }
    }
    sent.complete = text.includes('data: [DONE]') && !text.includes('"error"');
    return sent;
  } catch {
    return sent;
  } finally {
    clearTimeout(deadline);
    sent.endedAt = Date.now();
  }
}

/** Starts `options.workers` workers over the users' keys; each sends its next request when the previous ended. */
export function startLoad(world: World, users: FaultUser[], options: LoadOptions): Load {
  const sent: SentRequest[] = [];
  let stopping = false;
  let running = 0;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const worker = async (index: number) => {
    for (let turn = 0; !stopping; turn++) {
      const user = users[(index + turn) % users.length]!;
      const key = user.keys[turn % user.keys.length]!.key;
      const model = options.model?.() ?? faultModels.chat;
      // Half streamed, alternating per worker and turn: both kinds run at every moment.
      const stream = (index + turn) % 2 === 0;
      const leave = stream ? options.leave?.() : undefined;
      running += 1;
      try {
        sent.push(await send(world, user, key, model, stream, leave, timeoutMs));
      } finally {
        running -= 1;
      }
      // A refused request (503 while a dependency is away) answers at once: keep the pace human.
      if (sent[sent.length - 1]!.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const workers = Array.from({ length: options.workers }, (_, index) => worker(index));
  return {
    sent,
    inFlight: () => running,
    async stop() {
      stopping = true;
      await Promise.all(workers);
      return sent;
    },
  };
}
