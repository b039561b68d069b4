import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePorts } from '../../../services/gateway/test/support/cluster-client';

/**
 * PostgreSQL, Redis and NATS of the fault suite's own, each a child process on a free port with
 * its data in a temporary folder: the suite stops, kills, pauses and restarts them, which it must
 * never do to the machine's shared servers that other test files use at the same time.
 */
export interface PrivateServer {
  readonly name: 'postgres' | 'redis' | 'nats';
  readonly url: string;
  /** Stops it gracefully (data kept, as a restart would). */
  stop(): Promise<void>;
  /** Kills it with SIGKILL (data on disk kept; Redis keeps nothing). */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder, and waits until it answers. */
  start(): Promise<void>;
  /** SIGSTOP / SIGCONT: the process hangs with its connections open. */
  pause(): void;
  resume(): void;
  /** Stops it for good and removes its folder. */
  remove(): Promise<void>;
}

/** One free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/** Resolves once a TCP connection to the port succeeds (the server listens), within `timeoutMs`. */
async function listening(port: number, timeoutMs: number, what: string, child: () => ChildProcess | undefined): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    const process = child();
    if (process && process.exitCode !== null) throw new Error(`${what} exited with code ${process.exitCode} while starting`);
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function healthy(url: string, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not report healthy at ${url} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A server run as a child process; `command` starts it the same way every time; `stopSignal` is its graceful stop. */
function processServer(
  name: PrivateServer['name'],
  url: string,
  port: number,
  dir: string,
  command: () => ChildProcess,
  stopSignal: NodeJS.Signals = 'SIGTERM',
  /** Resolves once the server serves, beyond listening (NATS: JetStream recovered its streams). */
  ready?: () => Promise<void>,
): PrivateServer {
  let child: ChildProcess | undefined;
  const server: PrivateServer = {
    name,
    url,
    async start() {
      child = command();
      child.stderr?.resume();
      child.stdout?.resume();
      await listening(port, 20_000, name, () => child);
      await ready?.();
    },
    async stop() {
      if (!child) return;
      child.kill(stopSignal);
      await exited(child);
    },
    async kill() {
      if (!child) return;
      child.kill('SIGKILL');
      await exited(child);
    },
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async remove() {
      if (child) child.kill('SIGCONT');
      await server.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}

export async function startRedis(): Promise<PrivateServer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-faults-redis-'));
  // As the machine's Redis runs: nothing kept on disk, so a restart loses every key.
  const server = processServer('redis', `redis://127.0.0.1:${port}`, port, dir, () =>
    spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'pipe' }),
  );
  await server.start();
  return server;
}

/** NATS with JetStream; `config` (a file) adds users and permissions (deploy/nats/authorization.conf). */
export async function startNats(options: { config?: string; env?: Record<string, string> } = {}): Promise<PrivateServer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-faults-nats-'));
  const monitor = await freePort();
  const args = ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitor), '-js', '-sd', dir, ...(options.config ? ['-c', options.config] : [])];
  const server = processServer(
    'nats',
    `nats://127.0.0.1:${port}`,
    port,
    dir,
    () => spawn('nats-server', args, { stdio: 'pipe', env: { PATH: process.env.PATH, ...options.env } }),
    'SIGTERM',
    // A restarted server listens before JetStream has recovered its streams: a client starting
    // then is refused its consumers. /healthz answers 200 only once JetStream is ready.
    () => healthy(`http://127.0.0.1:${monitor}/healthz`, 20_000, 'nats'),
  );
  await server.start();
  return server;
}

/** The PostgreSQL binaries of the machine's version (Debian keeps them out of PATH). */
function postgresBin(program: string): string {
  const root = '/usr/lib/postgresql';
  const version = fs.existsSync(root) ? fs.readdirSync(root).sort().pop() : undefined;
  const candidate = version ? path.join(root, version, 'bin', program) : program;
  return fs.existsSync(candidate) ? candidate : program;
}

/**
 * PostgreSQL refuses to run as root: as root, it runs as the `postgres` user. setpriv execs the
 * program itself (no process in between), so the suite's signals reach the postmaster.
 */
function asPostgres(program: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0
    ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', postgresBin(program), ...args]]
    : [postgresBin(program), args];
}

export async function startPostgres(): Promise<PrivateServer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-faults-pg-'));
  const data = path.join(dir, 'data');
  if (process.getuid?.() === 0) spawnSync('chown', ['postgres', dir]);
  const [initdb, initArgs] = asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const init = spawnSync(initdb, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const server = processServer(
    'postgres',
    `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    () => {
      const [command, args] = asPostgres('postgres', ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off']);
      return spawn(command, args, { stdio: 'pipe' });
      // SIGINT: PostgreSQL's fast shutdown (clients disconnected, as `pg_ctl restart -m fast`); SIGTERM would wait for them.
    },
    'SIGINT',
  );
  await server.start();
  return server;
}
