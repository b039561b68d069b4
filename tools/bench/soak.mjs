// npm run bench:soak: our gateway all-in-one under a steady open-loop load for BENCH_SOAK_MINUTES
// (30), small chats and streams mixed, to show its resident memory stays flat after a warm-up
// (within ±10% of its mean) and how late its event loop runs. Writes docs/soak.md, the plot
// docs/soak.svg (RSS and event-loop delay p99 over time) and the samples in
// tools/bench/results/soak.json, which `npm run bench` reads for its targets.
//
// Layout as npm run bench (tools/bench/harness.mjs): the gateway on CPU 0, this process (the load
// driver) and the mock on CPU 1. The gateway is preloaded with loop-probe.mjs, which prints its
// event-loop delay every second; its RSS is read from /proc every second.
// Knobs (env): BENCH_SOAK_MINUTES (30: the whole run, warm-up included), BENCH_SOAK_WARMUP_MINUTES
// (2, or a third of a run shorter than 6 minutes), BENCH_SOAK_RPS (300), BENCH_SOAK_STREAM_EVERY (4: one request
// in 4 is a stream).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
// The load client, then the processes and the machine.
import { MODEL, chatRequest, checkStream, mockModel, ms, percentile, send } from './harness.mjs';
import {
  cpuAccount,
  log,
  machine,
  pinLoadDrivers,
  root,
  rssMiB,
  runMain,
  setting,
  sleep,
  startGateway,
  startMock,
  startWatchdog,
  stopAll,
} from './harness.mjs';

const minutes = setting('BENCH_SOAK_MINUTES', 30);
const config = {
  minutes,
  warmupMinutes: setting('BENCH_SOAK_WARMUP_MINUTES', Math.min(2, minutes / 3)),
  rps: setting('BENCH_SOAK_RPS', 300),
  streamEvery: setting('BENCH_SOAK_STREAM_EVERY', 4),
  streamChunks: 5,
  streamDelayMs: 20,
  /** RSS after the warm-up must stay within this many percent of its mean. */
  bandPercent: 10,
  /** Rows of the table over time in docs/soak.md. */
  windows: Math.max(1, Math.min(10, Math.round(minutes))),
  watchdogMs: (minutes + 5) * 60_000,
};
const STREAM_MODEL = mockModel(config.streamChunks, config.streamDelayMs);
const chatBody = chatRequest({ content: 'Say hello in one word.', maxTokens: 16 });
const streamBody = chatRequest({ model: STREAM_MODEL, content: 'Count to five.', maxTokens: 16, stream: true });
const PROBE_PREFIX = '@loop-probe '; // what loop-probe.mjs prints before its JSON

const round = (value, digits = 1) => (Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : null);
const sum = (values) => values.reduce((total, value) => total + value, 0);
const mean = (values) => (values.length ? sum(values) / values.length : NaN);
const sorted = (values) => [...values].sort((a, b) => a - b);

// ---------------------------------------------------------------------------------------------
// The load and the samples.

/**
 * Starts requests on a fixed schedule (request i at i / rps seconds), whether or not the earlier
 * ones finished: one in `streamEvery` is a stream. Counts per second (of its start) what was sent,
 * what succeeded and what failed, and keeps the latencies. Resolves once every request settled.
 */
async function drive(target, startedAt) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const total = Math.round(config.minutes * 60 * config.rps);
  const seconds = Array.from({ length: Math.ceil(config.minutes * 60) + 1 }, () => ({ sent: 0, ok: 0, failed: 0 }));
  const failures = {};
  const latency = { chat: [], ttft: [] };
  const inFlight = new Set();
  let sent = 0;
  const one = async (index, second) => {
    const stream = index % config.streamEvery === 0;
    const result = await send(target, agent, stream ? streamBody : chatBody, stream);
    const failure = stream
      ? checkStream(result, config.streamChunks)
      : result.error
        ? `error ${result.error.code ?? result.error.message}`
        : result.status !== 200
          ? `status ${result.status}`
          : undefined;
    if (failure) {
      failures[failure] = (failures[failure] ?? 0) + 1;
      seconds[second].failed++;
    } else {
      seconds[second].ok++;
      if (stream) latency.ttft.push(ms(result.firstData - result.started));
      else latency.chat.push(ms(result.ended - result.started));
    }
  };
  await new Promise((resolve) => {
    const timer = setInterval(() => {
      const elapsed = (performance.now() - startedAt) / 1000;
      const due = Math.min(total, Math.floor(elapsed * config.rps));
      for (; sent < due; sent++) {
        const second = Math.floor(sent / config.rps);
        seconds[second].sent++;
        const request = one(sent, second).finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
      if (sent === total) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
  await Promise.all(inFlight);
  agent.destroy();
  return { seconds, failures, latency };
}

/** The gateway's RSS every second, and the loop probe's lines as they come: [seconds since start, ...figures]. */
function sampleGateway(child, startedAt) {
  const at = () => round((performance.now() - startedAt) / 1000, 2);
  const samples = { rss: [], loop: [] };
  child.on('line', (line) => {
    if (!line.startsWith(PROBE_PREFIX)) return;
    const { p50, p99, max } = JSON.parse(line.slice(PROBE_PREFIX.length));
    samples.loop.push([at(), p50, p99, max]);
  });
  const timer = setInterval(() => {
    const value = rssMiB(child.pid);
    if (value !== undefined) samples.rss.push([at(), value]);
  }, 1000);
  return { samples, stop: () => clearInterval(timer) };
}

// ---------------------------------------------------------------------------------------------
// Figures.

/** Least-squares slope of y over x. */
function slope(points) {
  const mx = mean(points.map(([x]) => x));
  const my = mean(points.map(([, y]) => y));
  const num = sum(points.map(([x, y]) => (x - mx) * (y - my)));
  const den = sum(points.map(([x]) => (x - mx) ** 2));
  return den ? num / den : NaN;
}

function summarize(traffic, samples, runSeconds) {
  const warmup = config.warmupMinutes * 60;
  const sent = sum(traffic.seconds.map((second) => second.sent));
  const ok = sum(traffic.seconds.map((second) => second.ok));
  const rss = samples.rss.filter(([t]) => t >= warmup);
  const rssValues = rss.map(([, value]) => value);
  const rssMean = mean(rssValues);
  const [rssMin, rssMax] = [Math.min(...rssValues), Math.max(...rssValues)];
  const p99s = sorted(samples.loop.filter(([t]) => t >= warmup).map(([, , p99]) => p99));
  const chat = sorted(traffic.latency.chat);
  const ttft = sorted(traffic.latency.ttft);
  return {
    date: new Date().toISOString(),
    minutes: config.minutes,
    warmupMinutes: round(config.warmupMinutes, 2),
    rps: config.rps,
    bandPercent: config.bandPercent,
    sent,
    ok,
    failed: sent - ok,
    failures: traffic.failures,
    achievedRps: round(sent / runSeconds),
    okRps: round(ok / runSeconds),
    chatLatencyMs: { p50: round(percentile(chat, 50), 3), p99: round(percentile(chat, 99), 3) },
    ttftMs: { p50: round(percentile(ttft, 50), 3), p99: round(percentile(ttft, 99), 3) },
    rssMeanMiB: round(rssMean),
    rssMinMiB: rssMin,
    rssMaxMiB: rssMax,
    /** Lowest and highest sample after the warm-up, in percent from their mean. */
    rssSpreadPercent: [round((rssMin / rssMean - 1) * 100), round((rssMax / rssMean - 1) * 100)],
    met: rssValues.length > 0 && rssMin >= rssMean * (1 - config.bandPercent / 100) && rssMax <= rssMean * (1 + config.bandPercent / 100),
    rssTrendMiBPerMinute: round(slope(rss) * 60, 2),
    loopDelayP99Ms: { median: percentile(p99s, 50), p99: percentile(p99s, 99), worst: p99s.at(-1) ?? null },
    loopDelayMaxMs: Math.max(...samples.loop.filter(([t]) => t >= warmup).map(([, , , max]) => max)),
  };
}

/** The run cut into equal windows: traffic, RSS and loop delay of each. */
function windows(traffic, samples) {
  const length = (config.minutes * 60) / config.windows;
  return Array.from({ length: config.windows }, (_, index) => {
    const [from, to] = [index * length, (index + 1) * length];
    const inside = ([t]) => t >= from && t < to;
    const rss = samples.rss.filter(inside).map(([, value]) => value);
    const p99s = sorted(samples.loop.filter(inside).map(([, , p99]) => p99));
    const seconds = traffic.seconds.slice(Math.floor(from), Math.floor(to));
    return {
      fromMinute: round(from / 60, 2),
      toMinute: round(to / 60, 2),
      ok: sum(seconds.map((second) => second.ok)),
      failed: sum(seconds.map((second) => second.failed)),
      rssMeanMiB: round(mean(rss)),
      rssMinMiB: rss.length ? Math.min(...rss) : null,
      rssMaxMiB: rss.length ? Math.max(...rss) : null,
      loopP99MedianMs: p99s.length ? percentile(p99s, 50) : null,
      loopP99WorstMs: p99s.at(-1) ?? null,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The plot: two panels over the same time axis, written as SVG text.

/** About `count` round tick values, from the last at or below `min` to the first at or above `max`. */
function ticks(min, max, count = 5) {
  const raw = (max - min) / count || 1;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= raw);
  const values = [];
  for (let value = Math.floor(min / step) * step; value < max + step * (1 - 1e-9); value += step) values.push(round(value, 6));
  return values;
}

const escape = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function svgPlot(summary, samples, title) {
  const width = 960;
  const left = 72;
  const right = 24;
  const plotWidth = width - left - right;
  const panelHeight = 210;
  const panels = [
    { top: 60, label: 'RSS (MiB)', points: samples.rss.map(([t, value]) => [t, value]) },
    { top: 60 + panelHeight + 70, label: 'event-loop delay p99 per second (ms)', points: samples.loop.map(([t, , p99]) => [t, p99]) },
  ];
  const height = panels[1].top + panelHeight + 60;
  // The last samples can come a moment after the run's end.
  const seconds = Math.max(config.minutes * 60, ...panels.map((panel) => panel.points.at(-1)?.[0] ?? 0));
  const xTicks = ticks(0, config.minutes, 10).filter((minute) => minute * 60 <= seconds);
  const x = (t) => round(left + (t / seconds) * plotWidth);
  const band = { low: summary.rssMeanMiB * (1 - config.bandPercent / 100), high: summary.rssMeanMiB * (1 + config.bandPercent / 100) };
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escape(title)}</text>`,
    `<text x="${width / 2}" y="42" text-anchor="middle" fill="#555">${escape(
      `RSS after warm-up ${summary.rssMinMiB}–${summary.rssMaxMiB} MiB around ${summary.rssMeanMiB} (band ±${config.bandPercent}%: ${summary.met ? 'met' : 'NOT met'}); ${summary.ok} ok, ${summary.failed} failed`,
    )}</text>`,
  ];
  for (const [index, panel] of panels.entries()) {
    const values = panel.points.map(([, value]) => value);
    const [low, high] = index === 0 ? [Math.min(band.low, ...values), Math.max(band.high, ...values)] : [0, Math.max(1, ...values)];
    const yTicks = ticks(low, high, 5);
    const [yMin, yMax] = [yTicks[0], yTicks.at(-1)];
    const y = (value) => round(panel.top + panelHeight - ((value - yMin) / (yMax - yMin || 1)) * panelHeight);
    const bottom = panel.top + panelHeight;
    // Warm-up shading, grid, axes.
    parts.push(
      `<rect x="${left}" y="${panel.top}" width="${round(x(config.warmupMinutes * 60) - left)}" height="${panelHeight}" fill="#eee"/>`,
      `<text x="${left + 4}" y="${panel.top + 14}" fill="#888">warm-up</text>`,
    );
    if (index === 0) {
      parts.push(
        `<rect x="${x(config.warmupMinutes * 60)}" y="${y(band.high)}" width="${round(x(seconds) - x(config.warmupMinutes * 60))}" height="${round(y(band.low) - y(band.high))}" fill="#2a7" fill-opacity="0.12"/>`,
        `<line x1="${x(config.warmupMinutes * 60)}" x2="${x(seconds)}" y1="${y(summary.rssMeanMiB)}" y2="${y(summary.rssMeanMiB)}" stroke="#2a7" stroke-dasharray="6 4"/>`,
        `<text x="${round(x(seconds) - 4)}" y="${round(y(band.high) - 4)}" text-anchor="end" fill="#2a7">mean after warm-up ±${config.bandPercent}%</text>`,
      );
    }
    for (const value of yTicks) {
      parts.push(
        `<line x1="${left}" x2="${left + plotWidth}" y1="${y(value)}" y2="${y(value)}" stroke="#ddd"/>`,
        `<text x="${left - 6}" y="${round(y(value) + 4)}" text-anchor="end">${value}</text>`,
      );
    }
    for (const minute of xTicks) {
      parts.push(
        `<line x1="${x(minute * 60)}" x2="${x(minute * 60)}" y1="${bottom}" y2="${bottom + 5}" stroke="#333"/>`,
        `<text x="${x(minute * 60)}" y="${bottom + 18}" text-anchor="middle">${minute}</text>`,
      );
    }
    parts.push(
      `<rect x="${left}" y="${panel.top}" width="${plotWidth}" height="${panelHeight}" fill="none" stroke="#333"/>`,
      `<text x="${left + plotWidth / 2}" y="${bottom + 36}" text-anchor="middle">minutes since the start</text>`,
      `<text transform="translate(18 ${panel.top + panelHeight / 2}) rotate(-90)" text-anchor="middle">${escape(panel.label)}</text>`,
      `<polyline fill="none" stroke="${index === 0 ? '#1f5fbf' : '#c0392b'}" stroke-width="1.5" points="${panel.points
        .map(([t, value]) => `${x(t)},${y(value)}`)
        .join(' ')}"/>`,
    );
  }
  parts.push('</svg>', '');
  return parts.join('\n');
}

// ---------------------------------------------------------------------------------------------
// docs/soak.md.

const fmt = (value) => (value === null || value === undefined || Number.isNaN(value) ? '–' : String(value));

function markdown(report) {
  const { machine: m, summary: s } = report;
  const failures = Object.entries(s.failures)
    .map(([kind, count]) => `${count} × ${kind}`)
    .join(', ');
  const signedPercent = (value) => `${value >= 0 ? '+' : '−'}${Math.abs(value)}%`;
  return [
    '# Soak',
    '',
    'Produced by `npm run bench:soak` (`tools/bench/soak.mjs`); the samples are in `tools/bench/results/soak.json`.',
    '',
    `Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memoryGiB} GiB RAM, Node ${m.node}, ${m.os}; ${m.pinned}. Run ${m.date}; load average ${m.loadavg.join(' ')} at the start.`,
    `Other processes took ${m.otherCpuShare === null ? 'an unknown share' : `${round(m.otherCpuShare * 100)}%`} of the machine's CPU time during the run.`,
    '',
    `Settings: ${s.minutes} minutes (the first ${s.warmupMinutes} a warm-up) at ${s.rps} requests/s, open loop; one request in ${config.streamEvery} a stream (\`${STREAM_MODEL}\`: ${config.streamChunks} chunks ${config.streamDelayMs} ms apart), the others a small chat (\`${MODEL}\`, 4 chunks of answer). Our gateway all-in-one, as \`npm run bench\` runs it (SQLite, auth, billing and usage logging on, \`LOG_LEVEL=warn\`).`,
    '',
    '| figure | value |',
    '|---|---|',
    `| requests sent / ok / failed | ${s.sent} / ${s.ok} / ${s.failed}${failures ? ` (${failures})` : ''} |`,
    `| achieved rate: sent / ok per second | ${s.achievedRps} / ${s.okRps} |`,
    `| small chat latency p50 / p99 (ms) | ${fmt(s.chatLatencyMs.p50)} / ${fmt(s.chatLatencyMs.p99)} |`,
    `| stream time to first token p50 / p99 (ms) | ${fmt(s.ttftMs.p50)} / ${fmt(s.ttftMs.p99)} |`,
    `| RSS after the warm-up: min / max / mean (MiB) | ${s.rssMinMiB} / ${s.rssMaxMiB} / ${s.rssMeanMiB} |`,
    `| RSS after the warm-up within ±${s.bandPercent}% of its mean | **${s.met ? 'met' : 'NOT met'}** (${signedPercent(s.rssSpreadPercent[0])} to ${signedPercent(s.rssSpreadPercent[1])}) |`,
    `| RSS trend after the warm-up (least squares) | ${s.rssTrendMiBPerMinute >= 0 ? '+' : ''}${s.rssTrendMiBPerMinute} MiB/minute |`,
    `| event-loop delay p99 of each second after the warm-up: median / p99 / worst (ms) | ${fmt(s.loopDelayP99Ms.median)} / ${fmt(s.loopDelayP99Ms.p99)} / ${fmt(s.loopDelayP99Ms.worst)} |`,
    `| longest event-loop delay after the warm-up (ms) | ${fmt(s.loopDelayMaxMs)} |`,
    '',
    '![RSS and event-loop delay p99 over time](soak.svg)',
    '',
    'Over time:',
    '',
    '| minutes | requests ok / failed | RSS mean (min–max), MiB | event-loop delay p99 per second: median / worst (ms) |',
    '|---|---|---|---|',
    ...report.windows.map(
      (w) =>
        `| ${w.fromMinute}–${w.toMinute} | ${w.ok} / ${w.failed} | ${fmt(w.rssMeanMiB)} (${fmt(w.rssMinMiB)}–${fmt(w.rssMaxMiB)}) | ${fmt(w.loopP99MedianMs)} / ${fmt(w.loopP99WorstMs)} |`,
    ),
    '',
    'How it is measured:',
    '',
    `- **Load**: open loop: request i starts at i / ${s.rps} seconds whatever the earlier ones are doing (keep-alive, no limit on sockets), so a slow gateway meets more requests in flight rather than fewer requests. A failure is a socket error, a timeout (30 s), a non-200, or a stream without ${config.streamChunks} events and a final \`[DONE]\`. Latency is to the end of a small chat's answer and to the first \`data:\` byte of a stream.`,
    '- **RSS**: `VmRSS` of the gateway process from `/proc/<pid>/status`, every second. The target: after the warm-up, every sample within ±10% of the mean of those samples. The trend is the least-squares slope of the same samples.',
    '- **Event-loop delay**: `tools/bench/loop-probe.mjs`, preloaded into the gateway (`node --import`) by the soak only, runs `perf_hooks.monitorEventLoopDelay` (10 ms resolution) and prints p50, p99 and max of each second, beyond the 10 ms timer interval (0 = every timer on time).',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main.

async function main() {
  const watchdog = startWatchdog(config.watchdogMs);
  pinLoadDrivers();
  const report = { machine: machine(), config: { ...config, streamModel: STREAM_MODEL } };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-soak-'));
  const cpu = cpuAccount();
  try {
    const mock = await startMock();
    const probe = pathToFileURL(path.join(root, 'tools/bench/loop-probe.mjs')).href;
    const gateway = await startGateway({ mockUrl: mock.url, dataDir, models: [MODEL, STREAM_MODEL], nodeArgs: ['--import', probe] });
    if (gateway.notReady) throw new Error(`our gateway is not ready: ${gateway.notReady}`);
    log(
      `soak: ${config.minutes} min (${round(config.warmupMinutes, 2)} min warm-up) at ${config.rps} req/s, 1 in ${config.streamEvery} streamed; gateway pid ${gateway.child.pid}`,
    );
    const startedAt = performance.now();
    const sampler = sampleGateway(gateway.child, startedAt);
    const progress = setInterval(() => {
      const last = sampler.samples.rss.at(-1);
      const loop = sampler.samples.loop.at(-1);
      log(`soak: ${round((performance.now() - startedAt) / 60_000)} min; RSS ${last?.[1]} MiB; loop delay p99 ${loop?.[2]} ms`);
    }, 60_000);
    const traffic = await drive(gateway, startedAt);
    const runSeconds = (performance.now() - startedAt) / 1000;
    clearInterval(progress);
    await sleep(1100); // the probe's last second
    sampler.stop();
    report.summary = summarize(traffic, sampler.samples, runSeconds);
    report.windows = windows(traffic, sampler.samples);
    report.samples = {
      rss: sampler.samples.rss,
      loop: sampler.samples.loop,
      traffic: traffic.seconds.map((second, index) => [index, second.sent, second.ok, second.failed]),
    };
  } finally {
    await stopAll();
    fs.rmSync(dataDir, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
  report.machine.otherCpuShare = cpu.otherShare();

  const title = `Soak: our gateway all-in-one, ${config.rps} req/s for ${config.minutes} min (${report.machine.date.slice(0, 16).replace('T', ' ')} UTC)`;
  fs.writeFileSync(path.join(root, 'docs/soak.md'), markdown(report));
  fs.writeFileSync(path.join(root, 'docs/soak.svg'), svgPlot(report.summary, report.samples, title));
  fs.mkdirSync(path.join(root, 'tools/bench/results'), { recursive: true });
  fs.writeFileSync(path.join(root, 'tools/bench/results/soak.json'), `${JSON.stringify(report)}\n`);
  const s = report.summary;
  log(
    `done: ${s.sent} sent, ${s.ok} ok, ${s.failed} failed; RSS after warm-up ${s.rssMinMiB}–${s.rssMaxMiB} MiB around ${s.rssMeanMiB} (${s.met ? 'met' : 'NOT met'}); wrote docs/soak.md, docs/soak.svg, tools/bench/results/soak.json`,
  );
}

runMain(main);
