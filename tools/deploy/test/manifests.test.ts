import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// One file per model: the folders' index files load every model of the group.
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { chartDirectory, renderChart, renderedObjects } from '../chart.mjs';
import { build, jsonPatch, kustomizationProblems, strategicMerge } from '../kustomize.mjs';
import { objectProblems, root, yamlDocuments, yamlFiles, type KubernetesObject } from '../manifests.mjs';

/**
 * The manifests under deploy/ as the cluster would get them: every YAML file parses, every
 * kustomization builds (tools/deploy/kustomize.mjs) and the chart renders (tools/deploy/chart.mjs)
 * into objects the Kubernetes schemas accept, and the objects fit together (selectors, ports,
 * Secret and ConfigMap keys, Ingress backends, autoscalers, ServiceMonitors).
 */
const k8s = path.join(root, 'deploy/k8s');
const kustomizations = ['base', 'overlays/dev', 'overlays/production', 'overlays/monitoring'];
const exampleSecret = yamlDocuments(path.join(k8s, 'base/secret.example.yaml'))[0];
const secrets = { 'aigw-secrets': Object.keys(exampleSecret.stringData) };

/** Every test value a generated Secret needs: long enough for each key's minimum. */
const secretValues = Object.fromEntries(Object.keys(exampleSecret.stringData).map((key) => [key, `n${'0123456789abcdef'.repeat(3)}`]));
const chartRenderings: Record<string, Parameters<typeof renderChart>[0]> = {
  'defaults, existing Secret': { values: { secrets: { existingSecret: 'aigw-secrets' } } },
  'defaults, Secret from values': { values: { secrets: { values: { ...secretValues, DATABASE_URL: 'postgres://aigw:x@db:5432/aigw' } } } },
  'production values': { valueFiles: ['values-production.yaml'], values: { secrets: { existingSecret: 'aigw-secrets' } } },
  'ServiceMonitor, no Ingress, no autoscaling': {
    values: {
      secrets: { existingSecret: 'aigw-secrets' },
      metrics: { serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } } },
      ingress: { enabled: false },
      services: { gateway: { autoscaling: { enabled: false } }, relay: { autoscaling: { enabled: false }, podDisruptionBudget: { enabled: false } } },
    },
  },
};

/** The schema of each kind the manifests hold (kubernetes-models, the API server's OpenAPI schemas). */
const models: Record<string, new (data: any) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

/** Objects a schema refuses. ServiceMonitors have none here: objectProblems checks their shape. */
function schemaProblems(objects: KubernetesObject[]): string[] {
  return objects.flatMap((object) => {
    if (object.kind === 'ServiceMonitor') return [];
    const Model = models[`${object.apiVersion}/${object.kind}`];
    if (!Model) return [`${object.kind} ${object.metadata.name}: no schema for ${object.apiVersion} here (add it to models)`];
    try {
      new Model(object).validate();
      return [];
    } catch (error) {
      return [`${object.kind} ${object.metadata.name}: ${(error as Error).message}`];
    }
  });
}

const byName = (objects: KubernetesObject[], kind: string, name: string) => {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};

describe('the YAML under deploy/', () => {
  const problemsOf = (files: string[]) =>
    files.flatMap((file) => {
      try {
        return yamlDocuments(file).length ? [] : [`${path.relative(root, file)}: no document`];
      } catch (error) {
        return [(error as Error).message];
      }
    });

  it('parses, every document of every file but the chart templates (YAML 1.1, as kubectl reads it)', () => {
    const files = yamlFiles(path.join(root, 'deploy'), [path.join(chartDirectory, 'templates')]);
    expect(files.map((file) => path.relative(root, file))).toEqual(expect.arrayContaining(['deploy/k8s/base/relay.yaml', 'deploy/helm/aigw/values.yaml']));
    expect(problemsOf(files)).toEqual([]);
  });

  it('would report a syntax error or a duplicate key', () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-yaml-'));
    try {
      fs.writeFileSync(path.join(directory, 'a.yaml'), 'a: 1\na: 2\n');
      fs.writeFileSync(path.join(directory, 'b.yaml'), 'a: [1\n');
      expect(problemsOf(yamlFiles(directory))).toEqual([expect.stringMatching(/a\.yaml: Map keys must be unique/), expect.stringMatching(/b\.yaml: /)]);
    } finally {
      fs.rmSync(directory, { recursive: true });
    }
  });
});

describe.each(kustomizations)('kustomize %s', (directory) => {
  const objects = build(path.join(k8s, directory));

  it('names only files that exist (resources, patches, generator files)', () => {
    expect(kustomizationProblems(path.join(k8s, directory))).toEqual([]);
  });

  it('builds objects the Kubernetes schemas accept', () => {
    expect(objects.length).toBeGreaterThan(15);
    expect(schemaProblems(objects)).toEqual([]);
  });

  it('builds objects that fit together, reading the Secret secret.example.yaml describes', () => {
    expect(objectProblems(objects, { secrets })).toEqual([]);
  });

  it('gives every Deployment the metrics port, its METRICS_PORT and the scrape annotations, and every Service the port', () => {
    for (const deployment of objects.filter((object) => object.kind === 'Deployment')) {
      const pod = deployment.spec.template;
      const [container] = pod.spec.containers;
      expect({
        name: deployment.metadata.name,
        annotations: pod.metadata.annotations,
        port: container.ports.find((port: any) => port.name === 'metrics'),
      }).toEqual({
        name: deployment.metadata.name,
        annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464', 'prometheus.io/path': '/metrics' },
        port: { name: 'metrics', containerPort: 9464 },
      });
      expect(container.env).toContainEqual({ name: 'METRICS_PORT', value: '9464' });
      expect(byName(objects, 'Service', deployment.metadata.name).spec.ports).toContainEqual({ name: 'metrics', port: 9464, targetPort: 'metrics' });
    }
  });
});

describe('the monitoring overlay', () => {
  it('is production plus one ServiceMonitor over every Service', () => {
    const production = build(path.join(k8s, 'overlays/production'));
    const monitoring = build(path.join(k8s, 'overlays/monitoring'));
    expect(monitoring.filter((object) => object.kind !== 'ServiceMonitor')).toEqual(production);
    const monitor = byName(monitoring, 'ServiceMonitor', 'aigw');
    expect(monitor.metadata.namespace).toBe('aigw');
    const selected = monitoring.filter(
      (object) =>
        object.kind === 'Service' && Object.entries(monitor.spec.selector.matchLabels).every(([key, value]) => object.metadata.labels?.[key] === value),
    );
    expect(selected.map((service) => service.metadata.name).sort()).toEqual(['billing', 'channels', 'gateway', 'identity', 'notifier', 'relay']);
  });
});

describe.each(Object.entries(chartRenderings))('the Helm chart rendered with %s', (_label, options) => {
  const objects = renderedObjects(renderChart(options));

  it('renders objects the Kubernetes schemas accept', () => {
    expect(objects.length).toBeGreaterThan(10);
    expect(schemaProblems(objects)).toEqual([]);
  });

  it('renders objects that fit together', () => {
    expect(objectProblems(objects, { secrets })).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const base = build(path.join(k8s, 'base'));
  const broken = (change: (objects: KubernetesObject[]) => void) => {
    const objects = structuredClone(base);
    change(objects);
    return objectProblems(objects, { secrets });
  };

  it('a schema refuses a wrong type and a missing required field', () => {
    const objects = structuredClone(base);
    byName(objects, 'Deployment', 'relay').spec.template.spec.containers[0].ports[0].containerPort = '3004';
    delete byName(objects, 'Service', 'relay').spec.ports[0].port;
    objects.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray' } });
    expect(schemaProblems(objects)).toEqual([
      expect.stringMatching(/^Deployment relay: .*containerPort must be integer/),
      expect.stringMatching(/^Service relay: .*ports\/0 must have required property port$/),
      'Pod stray: no schema for v1 here (add it to models)',
    ]);
  });

  it('finds selectors, probes, ports and keys that do not fit', () => {
    expect(
      broken((objects) => {
        const relay = byName(objects, 'Deployment', 'relay');
        relay.spec.selector.matchLabels['app.kubernetes.io/name'] = 'relay-typo';
        relay.spec.template.spec.containers[0].readinessProbe.httpGet.port = 'htp';
        relay.spec.template.spec.containers[0].env.find((env: any) => env.name === 'DATABASE_URL').valueFrom.secretKeyRef.key = 'DB_URL';
        byName(objects, 'Service', 'billing').spec.selector = { 'app.kubernetes.io/name': 'nobody' };
        byName(objects, 'Service', 'notifier').spec.ports[0].targetPort = 'web';
        byName(objects, 'Ingress', 'relay').spec.rules[0].http.paths[0].backend.service = { name: 'relay', port: { number: 80 } };
        byName(objects, 'Ingress', 'gateway').spec.rules[0].http.paths[0].backend.service.name = 'console';
        byName(objects, 'Deployment', 'gateway').spec.replicas = 2;
        byName(objects, 'Deployment', 'identity').spec.template.spec.containers[0].envFrom[0].configMapRef.name = 'missing';
      }),
    ).toEqual([
      'Deployment identity container identity: envFrom ConfigMap missing is not there',
      "Deployment relay: selector.matchLabels does not match the pod template's labels",
      'Deployment relay container relay: readinessProbe port htp is not a declared containerPort',
      'Deployment relay container relay: env DATABASE_URL reads key DB_URL, which Secret aigw-secrets lacks',
      "Service billing: its selector matches no Deployment's pods",
      'Service notifier: port http targets web, which Deployment notifier does not declare',
      'Ingress gateway: backend Service console is not there',
      'Ingress relay: Service relay has no port 80',
      'Deployment gateway: sets replicas, which its HorizontalPodAutoscaler owns (every apply would reset them)',
    ]);
  });

  it('checks a ServiceMonitor by hand (no CRD schema is installed)', () => {
    const monitor = (spec: object) =>
      broken((objects) => objects.push({ apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', metadata: { name: 'aigw' }, spec }));
    const selector = { matchLabels: { 'app.kubernetes.io/part-of': 'aigw' } };
    expect(monitor({ selector, endpoints: [{ port: 'metrics', path: '/metrics', interval: '30s', scrapeTimeout: '10s' }] })).toEqual([]);
    expect(monitor({ selector, endpoints: [{ port: 'http-metrics', path: 'metrics', interval: '30 seconds', timeout: '1s' }] })).toEqual([
      'ServiceMonitor aigw: spec.endpoints[0].timeout is not a field this check knows',
      ...['gateway', 'identity', 'billing', 'channels', 'relay', 'notifier'].map(
        (name) => `ServiceMonitor aigw: spec.endpoints[0]: Service ${name} has no port named http-metrics`,
      ),
      'ServiceMonitor aigw: spec.endpoints[0].path must start with /',
      'ServiceMonitor aigw: spec.endpoints[0].interval must be a duration such as 30s',
    ]);
    expect(monitor({ selector: { matchLabels: { app: 'none' } }, endpoints: [{ port: 'metrics', interval: '10s', scrapeTimeout: '1m' }] })).toEqual([
      'ServiceMonitor aigw: selects no Service',
      'ServiceMonitor aigw: spec.endpoints[0]: scrapeTimeout must not exceed interval',
    ]);
  });
});

describe('the kustomize subset (tools/deploy/kustomize.mjs)', () => {
  it('merges containers and env by name, replaces lists without a merge key, as strategic merge does', () => {
    const target = {
      containers: [{ name: 'relay', env: [{ name: 'A', value: '1' }], args: ['x'] }],
      rules: [{ host: 'a' }, { host: 'b' }],
    };
    expect(strategicMerge(target, { containers: [{ name: 'relay', env: [{ name: 'B', value: '2' }], args: ['y'] }], rules: [{ host: 'c' }] })).toEqual({
      containers: [
        {
          name: 'relay',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
          args: ['y'],
        },
      ],
      rules: [{ host: 'c' }],
    });
    expect(() => strategicMerge(target, { containers: [{ name: 'relay', $patch: 'delete' }] })).toThrow(/outside the subset/);
  });

  it('applies JSON patches: add (also at the end of a list), replace, remove', () => {
    expect(
      jsonPatch({ spec: { minReplicas: 2, list: [1] } }, [
        { op: 'replace', path: '/spec/minReplicas', value: 1 },
        { op: 'add', path: '/spec/list/-', value: 2 },
        { op: 'add', path: '/spec/a~1b', value: true },
        { op: 'remove', path: '/spec/list/0' },
      ]),
    ).toEqual({ spec: { minReplicas: 1, list: [2], 'a/b': true } });
    expect(() => jsonPatch({}, [{ op: 'replace', path: '/spec/x', value: 1 }])).toThrow(/no spec/);
  });

  it('renders what the overlays say: dev deletes the budgets, production replaces the Ingress rules and drains longer', () => {
    const dev = build(path.join(k8s, 'overlays/dev'));
    expect(dev.filter((object) => object.kind === 'PodDisruptionBudget')).toEqual([]);
    expect(dev.filter((object) => object.kind === 'HorizontalPodAutoscaler').map((object) => object.spec.minReplicas)).toEqual([1, 1]);
    expect(byName(dev, 'Deployment', 'relay').spec.template.spec.containers[0].image).toBe('aigw:dev');
    const production = build(path.join(k8s, 'overlays/production'));
    expect(byName(production, 'Ingress', 'relay').spec.rules.map((rule: any) => rule.host)).toEqual(['aigw.example.com']);
    const relay = byName(production, 'Deployment', 'relay').spec.template.spec;
    expect([relay.terminationGracePeriodSeconds, relay.containers[0].env.at(-1), relay.containers[0].image]).toEqual([
      135,
      { name: 'SHUTDOWN_GRACE_MS', value: '120000' },
      'registry.example.com/aigw:0.1.0',
    ]);
    expect(byName(production, 'Deployment', 'identity').spec.replicas).toBe(2);
  });

  it('refuses what it does not render, and reports files a kustomization names but lacks', () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'aigw-kustomize-'));
    try {
      fs.writeFileSync(path.join(directory, 'kustomization.yaml'), 'resources:\n  - gone.yaml\n  - ../nowhere\npatches:\n  - path: patch.yaml\n');
      expect(kustomizationProblems(directory)).toEqual([
        `${directory}/kustomization.yaml: resource gone.yaml does not exist`,
        `${directory}/kustomization.yaml: resource ../nowhere does not exist`,
        `${directory}/kustomization.yaml: patch patch.yaml does not exist`,
      ]);
      fs.writeFileSync(path.join(directory, 'kustomization.yaml'), 'namePrefix: x-\n');
      expect(() => build(directory)).toThrow(/namePrefix outside the subset/);
    } finally {
      fs.rmSync(directory, { recursive: true });
    }
  });
});
