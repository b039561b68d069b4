import path from 'node:path';
import { serviceConfigSchema } from '@aigw/platform';
import { billingConfigShape } from '@aigw/billing/plugin';
import { channelsConfigShape } from '@aigw/channels/plugin';
import { identityConfigShape } from '@aigw/identity/plugin';
import { notifierConfigShape } from '@aigw/notifier/plugin';
import { relayConfigShape } from '@aigw/relay/plugin';
import { gatewayConfigSchema } from '../../../services/gateway/src/config.js';
import { renderChart, renderedObjects } from '../chart.mjs';
import { build } from '../kustomize.mjs';
import { root, yamlDocuments, type KubernetesObject } from '../manifests.mjs';

/**
 * One source of truth for each service's environment: the variables a Deployment gives a service
 * (its own `env`, and the ConfigMap it reads whole) are the ones its config schema reads, every
 * required one is there, and the whole environment parses. The Helm chart gives each service
 * exactly what the kustomize base gives it (values-production.yaml: what the production overlay
 * gives), names, values and Secret keys alike.
 */

/** What each process parses its environment with, as its src/main.ts does. */
const schemas = {
  gateway: gatewayConfigSchema,
  identity: serviceConfigSchema(3001, identityConfigShape),
  billing: serviceConfigSchema(3002, billingConfigShape),
  channels: serviceConfigSchema(3003, channelsConfigShape),
  relay: serviceConfigSchema(3004, relayConfigShape),
  notifier: serviceConfigSchema(3005, notifierConfigShape),
};
type ServiceName = keyof typeof schemas;
const services = Object.keys(schemas) as ServiceName[];

const k8s = path.join(root, 'deploy/k8s');
const exampleSecret: Record<string, string> = yamlDocuments(path.join(k8s, 'base/secret.example.yaml'))[0].stringData;

/** Where one variable's value comes from. */
type Source = { value: string } | { secret: string; key: string; optional: boolean } | { field: string };

/** A service's environment in one set of objects: its ConfigMaps read whole, then its own `env` (which wins). */
function environment(objects: KubernetesObject[], service: ServiceName): Record<string, Source> {
  const deployment = objects.find((object) => object.kind === 'Deployment' && object.metadata.name === service);
  if (!deployment) throw new Error(`no Deployment ${service}`);
  const [container] = deployment.spec.template.spec.containers;
  const sources: Record<string, Source> = {};
  for (const { configMapRef } of container.envFrom ?? []) {
    const configMap = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === configMapRef.name);
    for (const [name, value] of Object.entries<string>(configMap!.data)) sources[name] = { value };
  }
  for (const { name, value, valueFrom } of container.env) {
    if (value !== undefined) sources[name] = { value };
    else if (valueFrom.secretKeyRef)
      sources[name] = { secret: valueFrom.secretKeyRef.name, key: valueFrom.secretKeyRef.key, optional: Boolean(valueFrom.secretKeyRef.optional) };
    else if (valueFrom.fieldRef) sources[name] = { field: valueFrom.fieldRef.fieldPath };
    else throw new Error(`${service}: env ${name} comes from ${Object.keys(valueFrom).join()}, which this test does not resolve`);
  }
  return sources;
}

/** The environment as the process would see it: Secret keys from secret.example.yaml, the pod's name made up. */
function resolve(sources: Record<string, Source>, service: ServiceName): Record<string, string> {
  const values = Object.entries(sources).map(([name, source]) => {
    if ('value' in source) return [name, source.value];
    if ('key' in source) return [name, exampleSecret[source.key]];
    if (source.field !== 'metadata.name') throw new Error(`${name}: fieldRef ${source.field} is not resolved here`);
    return [name, `${service}-7c9d8f6b5-x2lqp`];
  });
  return Object.fromEntries(values.filter(([, value]) => value !== undefined));
}

/** Names the schema does not read, required names missing, and what the schema refuses in the whole environment. */
function environmentProblems(objects: KubernetesObject[], service: ServiceName): string[] {
  const schema = schemas[service];
  const shape: Record<string, { safeParse(value: unknown): { success: boolean } }> = schema.shape;
  const sources = environment(objects, service);
  const problems: string[] = [];
  for (const name of Object.keys(sources)) if (!(name in shape)) problems.push(`${service}: ${name} is given, but its config schema does not read it`);
  for (const [name, field] of Object.entries(shape))
    if (!field.safeParse(undefined).success && !(name in sources)) problems.push(`${service}: ${name} is required (no default) and not given`);
  const parsed = schema.safeParse(resolve(sources, service));
  if (!parsed.success) problems.push(...parsed.error.issues.map((issue) => `${service}: ${issue.path.join('.')}: ${issue.message}`));
  return problems;
}

const kustomize = (directory: string) => build(path.join(k8s, directory));
const base = kustomize('base');
const production = kustomize('overlays/production');
const existingSecret = { secrets: { existingSecret: 'aigw-secrets' } };
const chartDefaults = renderedObjects(renderChart({ values: existingSecret }));
const chartProduction = renderedObjects(renderChart({ valueFiles: ['values-production.yaml'], values: existingSecret }));

describe('each service environment against its config schema', () => {
  const sets = {
    'kustomize base': base,
    'kustomize overlays/dev': kustomize('overlays/dev'),
    'kustomize overlays/production': production,
    'kustomize overlays/monitoring': kustomize('overlays/monitoring'),
    'chart defaults': chartDefaults,
    'chart production': chartProduction,
  };

  it.each(Object.entries(sets))('%s: only names the schema reads, every required one, and values it accepts', (_label, objects) => {
    expect(services.flatMap((service) => environmentProblems(objects, service))).toEqual([]);
  });

  it('would report an unknown name, a missing required one and a value the schema refuses', () => {
    const objects = structuredClone(base);
    const billing = objects.find((object) => object.kind === 'Deployment' && object.metadata.name === 'billing')!;
    const env = billing.spec.template.spec.containers[0].env;
    billing.spec.template.spec.containers[0].env = [
      ...env.filter((variable: { name: string }) => variable.name !== 'TOKEN_KEY_SECRET'),
      { name: 'TOKEN_SECRET', value: 'x'.repeat(32) },
      { name: 'PENDING_SWEEP_INTERVAL_MS', value: '10' },
    ];
    expect(environmentProblems(objects, 'billing')).toEqual([
      'billing: TOKEN_SECRET is given, but its config schema does not read it',
      'billing: TOKEN_KEY_SECRET is required (no default) and not given',
      expect.stringMatching(/^billing: TOKEN_KEY_SECRET: /),
      expect.stringMatching(/^billing: PENDING_SWEEP_INTERVAL_MS: /),
    ]);
  });
});

describe('the chart and kustomize give each service the same environment', () => {
  it.each(services)('%s: chart defaults = kustomize base, values-production.yaml = the production overlay', (service) => {
    expect(environment(chartDefaults, service)).toEqual(environment(base, service));
    expect(environment(chartProduction, service)).toEqual(environment(production, service));
  });

  it("uses every key of secret.example.yaml but the NATS server's own, and no other", () => {
    const keys = (objects: KubernetesObject[]) =>
      [
        ...new Set(services.flatMap((service) => Object.values(environment(objects, service)).flatMap((source) => ('key' in source ? [source.key] : [])))),
      ].sort();
    const expected = Object.keys(exampleSecret)
      .filter((key) => key !== 'ADMIN_NATS_PASSWORD')
      .sort();
    expect(keys(base)).toEqual(expected);
    expect(keys(chartDefaults)).toEqual(expected);
  });
});
