/** Reading Prometheus text in tests: a scrape, its samples, and sums over label subsets. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a text exposition (comments skipped; label values unescaped). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(labelPair))
      labels[name!] = value!.replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** GET /metrics of a metrics listener on loopback. */
export async function scrape(port: number): Promise<Sample[]> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (response.status !== 200) throw new Error(`metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}

/** The sum of the samples called `name` whose labels include `labels`. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value))
    .reduce((total, sample) => total + sample.value, 0);
}

/** Every series (name and labels) whose name starts with `prefix`, as comparable strings. */
export function seriesOf(samples: Sample[], prefix: string): Set<string> {
  return new Set(
    samples
      .filter((sample) => sample.name.startsWith(prefix))
      .map(
        (sample) =>
          `${sample.name}{${Object.entries(sample.labels)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([label, value]) => `${label}=${value}`)
            .join(',')}}`,
      ),
  );
}
