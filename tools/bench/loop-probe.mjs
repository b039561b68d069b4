// Preloaded (node --import) into our gateway by the soak (soak.mjs) only, never by the product:
// every second, how late the event loop ran its timers over that second (perf_hooks'
// monitorEventLoopDelay), as one stdout line the soak parses:
//   @loop-probe {"p50":0.05,"p99":0.9,"max":3.1,"count":99}
// in milliseconds beyond the probe's own timer interval (0 = on time).
import { monitorEventLoopDelay } from 'node:perf_hooks';

const RESOLUTION_MS = 10;
const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();

/** The histogram holds the whole interval between two ticks (ns): what exceeds the resolution is the delay. */
const delayMs = (ns) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 1000) / 1000);

setInterval(() => {
  if (histogram.count > 0) {
    const figures = { p50: delayMs(histogram.percentile(50)), p99: delayMs(histogram.percentile(99)), max: delayMs(histogram.max), count: histogram.count };
    process.stdout.write(`@loop-probe ${JSON.stringify(figures)}\n`);
  }
  histogram.reset();
}, 1000).unref();
