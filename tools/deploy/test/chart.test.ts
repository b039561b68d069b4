import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { relayPrefixes } from '../../../services/gateway/src/route-table.js';
import { chartDirectory, renderChart, renderedObjects, templateFiles, templateProblems } from '../chart.mjs';
import { createRenderer, parseTemplate } from '../helm-template.mjs';
import { build } from '../kustomize.mjs';
import { root, yamlDocuments, yamlOptions, type KubernetesObject } from '../manifests.mjs';

/**
 * The Helm chart deploy/helm/aigw: its templates are well formed (blocks closed, every .Values
 * path in values.yaml, every include defined), and rendered (tools/deploy/helm-template.mjs, a
 * test-only renderer for the subset the chart uses) they make the same objects as the kustomize
 * manifests: the defaults what the base makes, values-production.yaml what the production overlay
 * makes. Environments are compared in env.test.ts.
 */
const k8s = path.join(root, 'deploy/k8s');
const read = (file: string) => fs.readFileSync(path.join(chartDirectory, file), 'utf8');
const values = YAML.parse(read('values.yaml'), yamlOptions);
const exampleSecret: Record<string, string> = yamlDocuments(path.join(k8s, 'base/secret.example.yaml'))[0].stringData;
const services = ['gateway', 'identity', 'billing', 'channels', 'relay', 'notifier'];
const existingSecret = { secrets: { existingSecret: 'aigw-secrets' } };

const render = (options: Parameters<typeof renderChart>[0] = {}) => renderedObjects(renderChart(options));
const find = (objects: KubernetesObject[], kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name);
const kinds = (objects: KubernetesObject[]) => objects.map((object) => `${object.kind}/${object.metadata.name}`).sort();

/** Everything of a service's objects that must not drift; labels, images and env (env.test.ts) aside. */
function serviceDigest(objects: KubernetesObject[], name: string) {
  const deployment = find(objects, 'Deployment', name)!;
  const { containers, topologySpreadConstraints, ...pod } = deployment.spec.template.spec;
  const { image: _image, imagePullPolicy: _pullPolicy, env: _env, ...container } = containers[0];
  const { 'checksum/config': _checksum, ...annotations } = deployment.spec.template.metadata.annotations;
  return {
    replicas: deployment.spec.replicas,
    strategy: deployment.spec.strategy,
    revisionHistoryLimit: deployment.spec.revisionHistoryLimit,
    annotations,
    pod,
    // The label selector differs (the chart's pods carry the release too); manifests.test.ts checks it selects the pod's own.
    topologySpreadConstraints: topologySpreadConstraints.map(({ labelSelector: _selector, ...constraint }: { labelSelector: unknown }) => constraint),
    container,
    service: { ...find(objects, 'Service', name)!.spec, selector: undefined },
    autoscaler: find(objects, 'HorizontalPodAutoscaler', name)?.spec,
    disruptionBudget: find(objects, 'PodDisruptionBudget', name)?.spec.minAvailable,
  };
}

function ingressDigest(objects: KubernetesObject[]) {
  return Object.fromEntries(
    objects
      .filter((object) => object.kind === 'Ingress')
      .map((ingress) => [ingress.metadata.name, { annotations: ingress.metadata.annotations, spec: ingress.spec }]),
  );
}

const configMaps = (objects: KubernetesObject[]) =>
  objects.filter((object) => object.kind === 'ConfigMap').map(({ metadata, data }) => ({ name: metadata.name, data }));

describe('the chart files', () => {
  it('are a v2 chart with the documented layout', () => {
    const chart = YAML.parse(read('Chart.yaml'), yamlOptions);
    expect(chart).toMatchObject({
      apiVersion: 'v2',
      name: path.basename(chartDirectory),
      type: 'application',
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
    });
    expect(templateFiles()).toEqual(expect.arrayContaining(['templates/_helpers.tpl', 'templates/NOTES.txt', 'templates/deployment.yaml']));
    expect(fs.existsSync(path.join(chartDirectory, 'README.md'))).toBe(true);
  });

  it('have closed blocks, .Values paths that values.yaml has, and includes of defined templates', () => {
    const files = Object.fromEntries(templateFiles().map((file) => [file, read(file)]));
    expect(templateProblems(files, values)).toEqual([]);
  });

  it('would report an unclosed block, a stray end or else, an unknown .Values path, an undefined include and a stray define', () => {
    const files = {
      'templates/a.yaml': '{{- if .Values.ingress.enabled }}\n{{ range .Values.services }}{{ end }}',
      'templates/b.yaml':
        '{{ end }}{{ else }}{{ .Values.ingress.hots }}{{ $.Values.metrics.port }}{{ include "aigw.nothing" . }}{{ define "aigw.y" }}{{ end }}',
      'templates/_helpers.tpl': '{{- define "aigw.x" -}}x{{- end }}',
    };
    expect(templateProblems(files, values)).toEqual([
      'templates/a.yaml: {{ if }} without {{ end }}',
      'templates/b.yaml: {{ end }} without an open block',
      'templates/b.yaml: {{ else }} outside if, range or with',
      'templates/b.yaml: .Values.ingress.hots is not in values.yaml',
      'templates/b.yaml: {{ define "aigw.y" }} belongs in templates/_helpers.tpl',
      'templates/b.yaml: include "aigw.nothing" is not defined',
    ]);
  });

  it('link the NATS authorization the services generate (files/nats-authorization.conf)', () => {
    expect(read('files/nats-authorization.conf')).toBe(fs.readFileSync(path.join(root, 'deploy/nats/authorization.conf'), 'utf8'));
  });

  it('keep the Secret keys of secret.example.yaml, all empty (no secret is ever committed)', () => {
    expect(Object.keys(values.secrets.values).sort()).toEqual(Object.keys(exampleSecret).sort());
    expect(Object.values(values.secrets.values).filter((value) => value !== '')).toEqual([]);
    expect(values.secrets.existingSecret).toBe('');
  });

  it('send the relay paths of the gateway route table to the relay, as the kustomize Ingresses do', () => {
    expect([...values.ingress.relay.paths].sort()).toEqual([...relayPrefixes].sort());
    for (const directory of ['base', 'overlays/production']) {
      const relay = find(build(path.join(k8s, directory)), 'Ingress', 'relay')!;
      expect({ directory, paths: relay.spec.rules[0].http.paths.map((entry: { path: string }) => entry.path) }).toEqual({
        directory,
        paths: values.ingress.relay.paths,
      });
    }
  });
});

describe('the chart rendered', () => {
  const defaults = render({ values: existingSecret });
  const production = render({ valueFiles: ['values-production.yaml'], values: existingSecret });
  const base = build(path.join(k8s, 'base'));
  const productionOverlay = build(path.join(k8s, 'overlays/production'));

  it('makes the kustomize objects: a Deployment, Service and the base autoscalers and budgets, the Ingresses, the ConfigMaps', () => {
    expect(kinds(defaults)).toEqual(kinds(base));
    expect(kinds(production)).toEqual(kinds(productionOverlay.filter((object) => object.kind !== 'Namespace')));
  });

  it.each(services)('%s: the defaults as the base, values-production.yaml as the production overlay', (name) => {
    expect(serviceDigest(defaults, name)).toEqual(serviceDigest(base, name));
    expect(serviceDigest(production, name)).toEqual(serviceDigest(productionOverlay, name));
  });

  it('has the Ingresses and ConfigMaps of the base, and of the production overlay', () => {
    expect(ingressDigest(defaults)).toEqual(ingressDigest(base));
    expect(ingressDigest(production)).toEqual(ingressDigest(productionOverlay));
    expect(configMaps(defaults)).toEqual(configMaps(base));
    expect(configMaps(production)).toEqual(configMaps(productionOverlay));
  });

  it('pins the production image as the overlay does, and takes a service its own', () => {
    const images = (objects: KubernetesObject[]) =>
      objects.filter((object) => object.kind === 'Deployment').map((object) => object.spec.template.spec.containers[0].image);
    expect(new Set(images(production))).toEqual(new Set(images(productionOverlay)));
    const relay = find(
      render({ values: { ...existingSecret, services: { relay: { image: { tag: '0.2.0-rc.1', pullPolicy: 'Always' } } } } }),
      'Deployment',
      'relay',
    )!;
    expect(relay.spec.template.spec.containers[0]).toMatchObject({ image: 'aigw:0.2.0-rc.1', imagePullPolicy: 'Always' });
  });

  it('renders the Secret from values only without existingSecret, refuses an empty key, and leaves out an empty INITIAL_ROOT_PASSWORD', () => {
    expect(find(defaults, 'Secret', 'aigw-secrets')).toBeUndefined();
    const filled = Object.fromEntries(Object.keys(exampleSecret).map((key) => [key, `value-of-${key}`]));
    const secret = find(render({ values: { secrets: { values: { ...filled, INITIAL_ROOT_PASSWORD: '' } } } }), 'Secret', 'aigw-secrets')!;
    expect(Object.keys(secret.stringData).sort()).toEqual(
      Object.keys(exampleSecret)
        .filter((key) => key !== 'INITIAL_ROOT_PASSWORD')
        .sort(),
    );
    expect(() => render()).toThrow('secrets.values.ADMIN_NATS_PASSWORD is empty: set it, or name your own Secret in secrets.existingSecret');
    const named = render({ values: { secrets: { existingSecret: 'vault-aigw' } } });
    const env = find(named, 'Deployment', 'billing')!.spec.template.spec.containers[0].env;
    expect(new Set(env.flatMap((variable: any) => variable.valueFrom?.secretKeyRef?.name ?? []))).toEqual(new Set(['vault-aigw']));
  });

  it('adds a ServiceMonitor over every Service only when metrics.serviceMonitor.enabled', () => {
    expect(defaults.filter((object) => object.kind === 'ServiceMonitor')).toEqual([]);
    const objects = render({ values: { ...existingSecret, metrics: { serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } } } } });
    const monitor = find(objects, 'ServiceMonitor', 'aigw')!;
    expect(monitor.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack' });
    expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s', scrapeTimeout: '10s' }]);
    const selected = objects.filter(
      (object) =>
        object.kind === 'Service' && Object.entries(monitor.spec.selector.matchLabels).every(([key, value]) => object.metadata.labels?.[key] === value),
    );
    expect(selected.map((service) => service.metadata.name).sort()).toEqual([...services].sort());
  });

  it('leaves out the Ingresses, autoscalers and budgets when disabled, and then sets replicas', () => {
    const objects = render({
      values: {
        ...existingSecret,
        ingress: { enabled: false },
        services: { relay: { autoscaling: { enabled: false }, podDisruptionBudget: { enabled: false }, replicas: 4 } },
      },
    });
    expect(kinds(objects).filter((kind) => /^(Ingress|HorizontalPodAutoscaler|PodDisruptionBudget)\//.test(kind))).toEqual([
      'HorizontalPodAutoscaler/gateway',
      'PodDisruptionBudget/gateway',
    ]);
    expect(find(objects, 'Deployment', 'relay')!.spec.replicas).toBe(4);
  });

  it('rolls the pods when the shared environment changes (checksum/config)', () => {
    const checksum = (objects: KubernetesObject[]) => find(objects, 'Deployment', 'relay')!.spec.template.metadata.annotations['checksum/config'];
    expect(checksum(render({ values: existingSecret }))).toBe(checksum(defaults));
    expect(checksum(render({ values: { ...existingSecret, config: { LOG_LEVEL: 'debug' } } }))).not.toBe(checksum(defaults));
  });

  it('writes NOTES.txt for the release', () => {
    const { notes } = renderChart({ valueFiles: ['values-production.yaml'], values: existingSecret, release: { Name: 'aigw', Namespace: 'gateway-prod' } });
    expect(notes).toContain('kubectl -n gateway-prod rollout status deploy/gateway');
    expect(notes).toContain('https://aigw.example.com/');
    expect(notes).toContain('The pods read the Secret aigw-secrets');
  });
});

describe('the test renderer (tools/deploy/helm-template.mjs) keeps Go template semantics', () => {
  const run = (source: string, data: unknown = {}) => {
    const { nodes, defines } = parseTemplate(source);
    return createRenderer(defines)(nodes, data);
  };

  it('trims around {{- and -}}, and drops comments', () => {
    expect(run('a  \n {{- "b" -}} \n  c {{/* note */}}d{{- /* trimmed */ -}}  e')).toBe('abc de');
  });

  it('ranges over maps in key order, over lists, and runs else over nothing', () => {
    const data = { map: { b: 2, a: 1 }, list: ['x', 'y'], empty: [] };
    expect(run('{{ range $k, $v := .map }}{{ $k }}={{ $v }};{{ end }}', data)).toBe('a=1;b=2;');
    expect(run('{{ range $i, $v := .list }}{{ $i }}{{ $v }}{{ end }}|{{ range .list }}{{ . }}{{ end }}', data)).toBe('0x1y|xy');
    expect(run('{{ range .empty }}x{{ else }}none{{ end }}{{ range .missing }}x{{ else }}, none{{ end }}', data)).toBe('none, none');
  });

  it('branches with if, else if, else and with, on Go truth (0, "", empty maps are false)', () => {
    const source = '{{ if .a }}a{{ else if .b }}b{{ else }}c{{ end }}';
    expect([run(source, { a: 1 }), run(source, { a: 0, b: 'x' }), run(source, { a: {}, b: '' })]).toEqual(['a', 'b', 'c']);
    expect(run('{{ with .host }}host: {{ . }}{{ else }}any{{ end }}', { host: 'h' })).toBe('host: h');
    expect(run('{{ with .host }}host: {{ . }}{{ else }}any{{ end }}', { host: '' })).toBe('any');
  });

  it('scopes variables to their block, and $ is the data the template was given', () => {
    expect(run('{{ $x := 1 }}{{ if true }}{{ $x := 2 }}{{ $x }}{{ end }}{{ $x }}')).toBe('21');
    expect(run('{{ range .list }}{{ $.name }}{{ . }}{{ end }}', { name: 'n', list: [1, 2] })).toBe('n1n2');
  });

  it('prints nothing for a missing key, and fails on a field of nothing, like Helm', () => {
    expect(run('[{{ .a }}]', {})).toBe('[]');
    expect(() => run('{{ .a.b }}', {})).toThrow('nil pointer evaluating .a.b');
  });

  it('runs pipelines and the chart functions as Helm does', () => {
    expect(
      run('{{ .port | quote }} {{ quote (printf "%s-%d" "a" 1) }} {{ default "x" .none }} {{ and 1 0 }} {{ or 0 "" "y" }} {{ not 0 }} {{ eq .a "b" "c" }}', {
        port: 3000,
        a: 'c',
      }),
    ).toBe('"3000" "a-1" x 0 y true true');
    expect(run('{{- toYaml .v | nindent 2 }}', { v: { b: 'off', a: ['1.1'] } })).toBe('\n  a:\n    - "1.1"\n  b: "off"');
    const merged = run('{{ $m := merge (dict) .own .global }}{{ $m.repository }}:{{ $m.tag }}', { own: { tag: '2' }, global: { repository: 'r', tag: '' } });
    expect(merged).toBe('r:2');
    expect(run('{{ define "x" }}<{{ .n }}>{{ end }}{{ include "x" (dict "n" 1) | indent 2 }}')).toBe('  <1>');
    expect(() => run('{{ required "set it" .v }}', { v: '' })).toThrow('set it');
    expect(() => run('{{ fail "no" }}')).toThrow('no');
  });

  it('refuses what is outside the subset, or what Helm would print differently', () => {
    expect(() => run('{{ template "x" . }}')).toThrow('unsupported: {{ template }}');
    expect(() => run('{{ lower "A" }}')).toThrow('unsupported function: lower');
    expect(() => run('{{ if true }}x')).toThrow('a block is missing its {{ end }}');
    expect(() => run('x{{ end }}')).toThrow('{{ end }} without an open block');
    expect(() => run('{{ .n }}', { n: 1000000 })).toThrow(/exponent form/);
    expect(() => run('{{ .m }}', { m: { a: 1 } })).toThrow(/use toYaml/);
  });
});
