// Reading the YAML under deploy/ and checking that Kubernetes objects fit together: what the API
// server's schemas cannot see (tools/deploy/test validates those with kubernetes-models). Used on
// the kustomize builds (kustomize.mjs) and the Helm chart's renderings (chart.mjs) alike.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** kubectl and Helm read YAML 1.1, where a bare `off` or `yes` is a boolean: so do the tests. */
export const yamlOptions = { version: '1.1' };

const isMap = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every .yaml and .yml file under `directory` (absolute paths, sorted), less the folders in `except`. */
export function yamlFiles(directory, except = []) {
  return fs
    .readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !except.some((folder) => file.startsWith(`${folder}${path.sep}`)))
    .sort();
}

/** Parsed files by path and modification time: the tests build and render the same files many times. */
const parsed = new Map();

/** The documents of a YAML file as plain values (empty ones dropped; a fresh copy each call); throws on a syntax error. */
export function yamlDocuments(file) {
  const key = `${file}@${fs.statSync(file).mtimeMs}`;
  if (!parsed.has(key)) {
    const documents = YAML.parseAllDocuments(fs.readFileSync(file, 'utf8'), yamlOptions).flatMap((document) => {
      if (document.errors.length) throw new Error(`${path.relative(root, file)}: ${document.errors[0].message}`);
      const value = document.toJS();
      return value == null ? [] : [value];
    });
    parsed.set(key, documents);
  }
  return structuredClone(parsed.get(key));
}

const labelsMatch = (selector, labels) =>
  isMap(selector) && Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels?.[key] === value);
const hasPort = (ports, port) => (ports ?? []).some((candidate) => candidate.name === port || candidate.containerPort === port);
const seconds = (duration) =>
  [...duration.matchAll(/(\d+)(ms|s|m|h)/g)].reduce((total, [, amount, unit]) => total + Number(amount) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit], 0);

// The ServiceMonitor is a custom resource (the Prometheus Operator's monitoring.coreos.com/v1):
// kubernetes-models has no schema for it, and @kubernetes-models/prometheus-operator is not
// installed. So its shape is checked here by hand, for the fields the operator's CRD documents
// that these manifests may use; any other field is reported rather than trusted.
const serviceMonitorSpecFields = ['selector', 'endpoints', 'namespaceSelector', 'jobLabel', 'targetLabels', 'podTargetLabels', 'sampleLimit'];
const endpointFields = ['port', 'path', 'scheme', 'interval', 'scrapeTimeout', 'honorLabels', 'relabelings', 'metricRelabelings'];
const duration = /^(\d+(ms|s|m|h))+$/;

function serviceMonitorProblems(monitor, services) {
  const at = `ServiceMonitor ${monitor.metadata?.name}`;
  const problems = [];
  const spec = monitor.spec ?? {};
  if (monitor.apiVersion !== 'monitoring.coreos.com/v1') problems.push(`${at}: apiVersion must be monitoring.coreos.com/v1`);
  for (const field of Object.keys(spec)) if (!serviceMonitorSpecFields.includes(field)) problems.push(`${at}: spec.${field} is not a field this check knows`);
  const selector = spec.selector?.matchLabels;
  if (!isMap(selector) || !Object.keys(selector).length || !Object.values(selector).every((value) => typeof value === 'string'))
    problems.push(`${at}: spec.selector.matchLabels must be a non-empty map of strings`);
  const inNamespaces = spec.namespaceSelector?.any
    ? () => true
    : (service) => (spec.namespaceSelector?.matchNames ?? [monitor.metadata?.namespace]).includes(service.metadata.namespace);
  const selected = services.filter((service) => inNamespaces(service) && labelsMatch(selector, service.metadata.labels));
  if (!selected.length) problems.push(`${at}: selects no Service`);
  if (!Array.isArray(spec.endpoints) || !spec.endpoints.length) problems.push(`${at}: spec.endpoints must list at least one endpoint`);
  for (const [index, endpoint] of (spec.endpoints ?? []).entries()) {
    const where = `${at}: spec.endpoints[${index}]`;
    for (const field of Object.keys(endpoint)) if (!endpointFields.includes(field)) problems.push(`${where}.${field} is not a field this check knows`);
    if (typeof endpoint.port !== 'string') problems.push(`${where}.port must name a Service port`);
    for (const service of selected)
      if (!service.spec.ports.some((port) => port.name === endpoint.port))
        problems.push(`${where}: Service ${service.metadata.name} has no port named ${endpoint.port}`);
    if (endpoint.path !== undefined && !String(endpoint.path).startsWith('/')) problems.push(`${where}.path must start with /`);
    for (const field of ['interval', 'scrapeTimeout'])
      if (endpoint[field] !== undefined && !duration.test(endpoint[field])) problems.push(`${where}.${field} must be a duration such as 30s`);
    if (duration.test(endpoint.interval) && duration.test(endpoint.scrapeTimeout) && seconds(endpoint.scrapeTimeout) > seconds(endpoint.interval))
      problems.push(`${where}: scrapeTimeout must not exceed interval`);
  }
  return problems;
}

/**
 * What does not fit together in a set of objects (one kustomize build, one chart rendering):
 * selectors that select nothing, probe, Service and Ingress ports that are not declared, Secret and
 * ConfigMap keys that do not exist, autoscaled Deployments that set their own replicas, and the
 * ServiceMonitors' shape. `secrets` gives the keys of Secrets made outside the objects
 * (name: keys), such as the one secret.example.yaml describes.
 */
export function objectProblems(objects, { secrets = {} } = {}) {
  const problems = [];
  const ofKind = (kind) => objects.filter((object) => object.kind === kind);
  const named = (kind, name) => objects.find((object) => object.kind === kind && object.metadata.name === name);
  const secretKeys = (name) => {
    const secret = named('Secret', name);
    return secret ? Object.keys({ ...secret.data, ...secret.stringData }) : secrets[name];
  };
  const configMapKeys = (name) => {
    const configMap = named('ConfigMap', name);
    return configMap && Object.keys({ ...configMap.data, ...configMap.binaryData });
  };
  const deployments = ofKind('Deployment');
  const services = ofKind('Service');
  const podsOf = (selector) => deployments.filter((deployment) => labelsMatch(selector, deployment.spec.template.metadata?.labels));

  for (const deployment of deployments) {
    const at = `Deployment ${deployment.metadata.name}`;
    const { selector, template } = deployment.spec;
    if (selector.matchExpressions) problems.push(`${at}: selector.matchExpressions are not checked: use matchLabels`);
    if (!labelsMatch(selector.matchLabels, template.metadata?.labels)) problems.push(`${at}: selector.matchLabels does not match the pod template's labels`);
    for (const constraint of template.spec.topologySpreadConstraints ?? [])
      if (!labelsMatch(constraint.labelSelector?.matchLabels, template.metadata?.labels))
        problems.push(`${at}: a topology spread constraint does not select its own pods`);
    for (const container of template.spec.containers) {
      const where = `${at} container ${container.name}`;
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        const port = container[probe]?.httpGet?.port ?? container[probe]?.tcpSocket?.port;
        if (port !== undefined && !hasPort(container.ports, port)) problems.push(`${where}: ${probe} port ${port} is not a declared containerPort`);
      }
      for (const { name, valueFrom } of container.env ?? []) {
        for (const [kind, reference, keysOf] of [
          ['Secret', valueFrom?.secretKeyRef, secretKeys],
          ['ConfigMap', valueFrom?.configMapKeyRef, configMapKeys],
        ]) {
          if (!reference) continue;
          const keys = keysOf(reference.name);
          if (!keys) problems.push(`${where}: env ${name} reads ${kind} ${reference.name}, which is not there`);
          else if (!keys.includes(reference.key)) problems.push(`${where}: env ${name} reads key ${reference.key}, which ${kind} ${reference.name} lacks`);
        }
      }
      for (const source of container.envFrom ?? []) {
        if (source.configMapRef && !configMapKeys(source.configMapRef.name))
          problems.push(`${where}: envFrom ConfigMap ${source.configMapRef.name} is not there`);
        if (source.secretRef && !secretKeys(source.secretRef.name)) problems.push(`${where}: envFrom Secret ${source.secretRef.name} is not there`);
      }
    }
  }
  for (const service of services) {
    const at = `Service ${service.metadata.name}`;
    const selected = podsOf(service.spec.selector);
    if (!selected.length) problems.push(`${at}: its selector matches no Deployment's pods`);
    for (const port of service.spec.ports)
      for (const deployment of selected)
        if (!deployment.spec.template.spec.containers.some((container) => hasPort(container.ports, port.targetPort ?? port.port)))
          problems.push(`${at}: port ${port.name} targets ${port.targetPort ?? port.port}, which Deployment ${deployment.metadata.name} does not declare`);
  }
  for (const ingress of ofKind('Ingress')) {
    const backends = [ingress.spec.defaultBackend, ...(ingress.spec.rules ?? []).flatMap((rule) => rule.http?.paths ?? []).map((entry) => entry.backend)];
    for (const backend of backends.filter(Boolean)) {
      const { name, port } = backend.service;
      const service = named('Service', name);
      if (!service) problems.push(`Ingress ${ingress.metadata.name}: backend Service ${name} is not there`);
      else if (!service.spec.ports.some((candidate) => (port.name !== undefined ? candidate.name === port.name : candidate.port === port.number)))
        problems.push(`Ingress ${ingress.metadata.name}: Service ${name} has no port ${port.name ?? port.number}`);
    }
  }
  for (const autoscaler of ofKind('HorizontalPodAutoscaler')) {
    const { kind, name } = autoscaler.spec.scaleTargetRef;
    const target = named(kind, name);
    if (!target) problems.push(`HorizontalPodAutoscaler ${autoscaler.metadata.name}: scales ${kind} ${name}, which is not there`);
    else if (target.spec.replicas !== undefined)
      problems.push(`${kind} ${name}: sets replicas, which its HorizontalPodAutoscaler owns (every apply would reset them)`);
  }
  for (const budget of ofKind('PodDisruptionBudget'))
    if (!podsOf(budget.spec.selector?.matchLabels).length) problems.push(`PodDisruptionBudget ${budget.metadata.name}: selects no Deployment's pods`);
  for (const monitor of ofKind('ServiceMonitor')) problems.push(...serviceMonitorProblems(monitor, services));
  return problems;
}
