import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'nats';
import { waitFor } from '@aigw/platform/testing';
import { freePorts } from './cluster-client';

/**
 * A nats-server of a test's own, with JetStream and a config file (the committed authorization),
 * on a free port with its store in a temporary folder: the shared server at 4222 has no users and
 * stays as it is.
 */
export interface ThrowawayNats {
  url: string;
  stop(): Promise<void>;
}

/** Starts the server with `configFile`; `env` is its environment (the passwords the config reads). */
export async function startThrowawayNats(configFile: string, env: Record<string, string>, probe: { user: string; password: string }): Promise<ThrowawayNats> {
  const [port] = await freePorts(1);
  const url = `nats://127.0.0.1:${port}`;
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-nats-'));
  // The same flags as docker-compose.yml's nats service, the config file last.
  const server: ChildProcess = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir, '-c', configFile], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let failure: Error | undefined;
  server.once('error', (error) => (failure = error));

  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('close', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(storeDir, { recursive: true, force: true });
  };

  try {
    await waitFor(
      async () => {
        if (failure) throw new Error(`nats-server did not start (is it installed?): ${failure.message}`);
        if (server.exitCode !== null) throw new Error(`nats-server exited (${server.exitCode}): ${output.trim()}`);
        const connection = await connect({ servers: url, user: probe.user, pass: probe.password, reconnect: false }).catch(() => undefined);
        if (!connection) return false;
        await connection.close();
        return true;
      },
      10_000,
      `nats-server on port ${port}`,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}
