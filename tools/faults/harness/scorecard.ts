import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScenarioResult } from './checks';

/** Whether a scenario kept every money invariant. */
export function kept(result: ScenarioResult): boolean {
  return (
    result.lost === 0 && result.doubled === 0 && result.negative === 0 && result.openHolds === 0 && result.refusedCharged === 0 && result.unreconciled === 0
  );
}

const root = path.resolve(__dirname, '../../..');

/** Writes docs/reliability.md and docs/reliability.json: the scorecard `npm run test:faults` leaves. */
export function writeScorecard(results: Array<{ result: ScenarioResult; fault: string }>, runSeconds: number): void {
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const json = {
    generated_at: new Date().toISOString(),
    machine,
    run_seconds: Math.round(runSeconds),
    scenarios: results.map(({ result, fault }) => ({ ...result, fault, kept: kept(result) })),
  };
  fs.writeFileSync(path.join(root, 'docs/reliability.json'), `${JSON.stringify(json, null, 2)}\n`);

  const cell = (value: number | null) => (value === null ? 'none' : String(Math.round(value * 10) / 10));
  const rows = results.map(
    ({ result }) =>
      `| ${result.scenario} | ${result.topology} | ${result.sent} | ${result.succeeded} | ${result.refused} | ${result.cut} | ${result.reachedUpstream} | ${result.lost} | ${result.doubled} | ${result.negative} | ${result.openHolds} | ${result.refusedCharged} | ${cell(result.recoverySeconds)} | ${cell(result.settleSeconds)} |`,
  );
  const faults = results.map(({ result, fault }) => `- **${result.scenario}**: ${fault}.`);
  const markdown = [
    '# Reliability scorecard',
    '',
    '<!-- Written by `npm run test:faults` (tools/faults); do not edit by hand. -->',
    '',
    `Money under faults, measured: every scenario runs a load of mixed streaming and non-streaming chat requests`,
    `from its own users and keys, injects its fault while requests are in flight, heals it, waits for the system to`,
    `settle, and checks the invariants (docs/architecture.md section 5.4). **Lost**: requests that reached the upstream`,
    `without exactly one usage record. **Doubled**: a request recorded twice, a record without a request, or a forged`,
    `record that was applied (a record charging nothing for a request a killed relay never forwarded is neither). **Below zero**: balances or key quotas under zero. **Open holds**: quota still held`,
    `once settled (or a live counter that is not the database balance). **Refused, charged**: quota charged to`,
    `requests the client saw refused. **Recovery**: seconds from the heal until the first request started after it`,
    `succeeded. Every balance is also reconciled with the ledger (all ${results.filter(({ result }) => result.unreconciled === 0).length} of ${results.length} clean).`,
    '',
    `Run: ${json.generated_at.slice(0, 16).replace('T', ' ')} UTC, ${Math.round(runSeconds)} s, on ${machine}.`,
    '',
    '| scenario | topology | sent | succeeded | refused | cut or left | reached upstream | lost | doubled | below zero | open holds | refused, charged | recovery s | settled in s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '## The faults',
    '',
    ...faults,
    '',
    'Reproduce with `npm run test:faults` (about ten minutes; the quick subset of three scenarios runs in `npm test`).',
    'The suite starts its own PostgreSQL, Redis and NATS (with one user per service) on free ports, so it never',
    'touches the shared servers.',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(root, 'docs/reliability.md'), markdown);
}
