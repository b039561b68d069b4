// npm run start:cluster: every service as its own process, then the gateway on PORT.
// Ports: PORT (gateway), IDENTITY_PORT, BILLING_PORT, CHANNELS_PORT, RELAY_PORT, NOTIFIER_PORT.
import { defaultPorts, serviceNames, startCluster } from './cluster.mjs';

const ports = { gateway: port('PORT', defaultPorts.gateway) };
for (const name of serviceNames) ports[name] = port(`${name.toUpperCase()}_PORT`, defaultPorts[name]);

const width = Math.max(...[...serviceNames, 'gateway', 'cluster'].map((name) => name.length));
const log = (name, line, stream = 'stdout') => process[stream].write(`[${name}]${' '.repeat(width - name.length)} ${line}\n`);

let exiting = false;
const started = startCluster({ env: process.env, ports, log, onCrash: () => exit(1) });
started.catch((error) => {
  log('cluster', `failed to start: ${error instanceof Error ? error.message : String(error)}`, 'stderr');
  process.exit(1);
});

/** Stops the gateway, then the services (after startup finishes, if still starting), then exits. */
function exit(code) {
  if (exiting) return;
  exiting = true;
  void started
    .then(
      (cluster) => cluster.stop(),
      () => undefined,
    )
    .finally(() => process.exit(code));
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (exiting) {
      log('cluster', `${signal} again: exiting now`, 'stderr');
      process.exit(1); // cluster.mjs still sends SIGTERM to every child on exit
    }
    log('cluster', `${signal}: stopping the gateway, then the services`);
    exit(0);
  });
}

function port(variable, fallback) {
  const raw = process.env[variable];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    process.stderr.write(`${variable}: '${raw}' is not a port\n`);
    process.exit(1);
  }
  return value;
}
