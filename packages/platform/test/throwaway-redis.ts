import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { Redis } from 'ioredis';
import { waitFor } from '../src/testing/infrastructure.js';

/**
 * A redis-server of a test's own, on a free port and without persistence, for tests that lose
 * Redis's data (a restart, FLUSHALL): the shared server at 6379 is never restarted or flushed.
 */
export interface ThrowawayRedis {
  url: string;
  /** Kills the server and starts a new one on the same port: every key is gone, clients reconnect. */
  restart(): Promise<void>;
  /** FLUSHALL: every key is gone, connections stay up. */
  flushAll(): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch {
    // Refused: the client has ended by itself (no retries).
    return false;
  }
  try {
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;

  const launch = async () => {
    let failure: Error | undefined;
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', os.tmpdir()], {
      stdio: 'ignore',
    });
    server.once('error', (error) => {
      failure = error;
    });
    await waitFor(
      async () => {
        if (failure) throw new Error(`redis-server did not start (is it installed?): ${failure.message}`);
        return answers(url);
      },
      10_000,
      `redis-server on port ${port}`,
    );
  };
  const kill = async () => {
    const running = server;
    server = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('close', resolve));
    running.kill('SIGKILL');
    await exited;
  };

  await launch();
  return {
    url,
    async restart() {
      await kill();
      await launch();
    },
    async flushAll() {
      const client = new Redis(url);
      try {
        await client.flushall();
      } finally {
        await client.quit();
      }
    },
    stop: kill,
  };
}
