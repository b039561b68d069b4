import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const repositoryRoot = path.resolve(__dirname, '..', '..', '..');

export interface RunningServer {
  url: string;
  dataDir: string;
  /** The server's output so far (printed when a test fails to start it). */
  output(): string;
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

async function waitUntilHealthy(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server did not answer /healthz within ${timeoutMs} ms:\n${output()}`);
}

/**
 * The all-in-one server as `npm start` runs it (the compiled gateway with every service, SQLite,
 * in-process bus), on a free port with its own data folder, serving the built console.
 * `npm test` compiles and builds the console before the suites run.
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const entry = path.join(repositoryRoot, 'services', 'gateway', 'dist', 'main.js');
  const webDist = path.join(repositoryRoot, 'web', 'dist', 'index.html');
  for (const file of [entry, webDist]) {
    if (!fs.existsSync(file)) throw new Error(`${path.relative(repositoryRoot, file)} is missing: run npm run build first`);
  }
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(process.execPath, [entry], {
    cwd: repositoryRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.homedir(),
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // One browser makes many calls from one address: the per-IP limits would get in the way.
      GLOBAL_API_RATE_LIMIT: '0',
      CRITICAL_RATE_LIMIT: '10000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);

  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await waitUntilHealthy(url, child, () => output, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, dataDir, output: () => output, stop };
}
