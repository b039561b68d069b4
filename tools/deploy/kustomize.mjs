// A test-only stand-in for `kustomize build`, for the kustomization fields deploy/k8s uses (no
// kustomize binary is installed here and none may be downloaded), so the tests check the objects
// an overlay really applies, not its patches alone. The subset, applied in kustomize's order:
//
// - resources: YAML files (several documents each) and folders with a kustomization.yaml;
// - configMapGenerator: literals and files, behavior create or merge. Names stay without
//   kustomize's content hash (kustomize rewrites every reference to the hashed name, so
//   references resolve the same);
// - patches: `path` (strategic merge patches, each document applied to the object of its kind and
//   name) and `patch` with a `target` (kind, optional name): a JSON patch list (add, replace,
//   remove), `$patch: delete`, or a strategic merge patch;
// - namespace (on every object but Namespaces), labels (pairs on metadata.labels, and on pod
//   templates with includeTemplates; includeSelectors: false only), images (newName, newTag),
//   replicas.
//
// Strategic merge as Kubernetes does it for the fields in use: maps merge, lists with a merge key
// (containers, env and volumes by name, ports by port number, volumeMounts by mountPath) merge
// item by item, other lists are replaced. Any other field throws: extend this file with it.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { yamlDocuments, yamlOptions } from './manifests.mjs';

const supported = ['apiVersion', 'kind', 'namespace', 'resources', 'configMapGenerator', 'patches', 'labels', 'images', 'replicas'];
const isMap = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const clone = (value) => structuredClone(value);

/** The merge key of a list field in a strategic merge patch, or undefined: the list is replaced. */
function mergeKey(field, items) {
  if (field === 'ports') return items.every((item) => 'containerPort' in item) ? 'containerPort' : 'port';
  return { containers: 'name', initContainers: 'name', env: 'name', volumes: 'name', imagePullSecrets: 'name', volumeMounts: 'mountPath' }[field];
}

/** `target` with the strategic merge patch `patch` applied (neither is changed; the result may share their parts). */
export function strategicMerge(target, patch, field) {
  if (Array.isArray(patch)) {
    const key = mergeKey(field, patch);
    if (!key || !Array.isArray(target)) return clone(patch);
    const merged = [...target];
    for (const item of patch) {
      const index = merged.findIndex((existing) => existing[key] === item[key]);
      if (index === -1) merged.push(clone(item));
      else merged[index] = strategicMerge(merged[index], item);
    }
    return merged;
  }
  if (!isMap(patch) || !isMap(target)) return clone(patch);
  const merged = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) throw new Error(`strategic merge directive ${key} is outside the subset tools/deploy/kustomize.mjs renders`);
    if (value === null) delete merged[key];
    else merged[key] = strategicMerge(target[key], value, key);
  }
  return merged;
}

/** `target` with the JSON patch `operations` applied (add, replace, remove). */
export function jsonPatch(target, operations) {
  const patched = clone(target);
  for (const { op, path: pointer, value } of operations) {
    const keys = pointer
      .split('/')
      .slice(1)
      .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = keys.pop();
    const parent = keys.reduce((node, key) => {
      if (node?.[key] === undefined) throw new Error(`JSON patch ${op} ${pointer}: no ${key}`);
      return node[key];
    }, patched);
    if (!['add', 'replace', 'remove'].includes(op)) throw new Error(`JSON patch op ${op} is outside the subset`);
    if (op !== 'add' && parent[last] === undefined) throw new Error(`JSON patch ${op} ${pointer}: nothing there`);
    if (Array.isArray(parent) && op !== 'replace') {
      const index = last === '-' ? parent.length : Number(last);
      if (op === 'add') parent.splice(index, 0, clone(value));
      else parent.splice(index, 1);
    } else if (op === 'remove') delete parent[last];
    else parent[last] = clone(value);
  }
  return patched;
}

const sameObject = (a, b) => a.kind === b.kind && a.metadata?.name === b.metadata?.name;
const podTemplate = (object) => (['Deployment', 'StatefulSet', 'DaemonSet', 'Job'].includes(object.kind) ? object.spec?.template : undefined);

function readKustomization(directory) {
  const [kustomization] = yamlDocuments(path.join(directory, 'kustomization.yaml'));
  const unknown = Object.keys(kustomization).filter((key) => !supported.includes(key));
  if (unknown.length) throw new Error(`${directory}/kustomization.yaml: ${unknown.join(', ')} outside the subset tools/deploy/kustomize.mjs renders`);
  return kustomization;
}

/** What is wrong with a kustomization's references: a resource, patch or generator file that is not there. */
export function kustomizationProblems(directory) {
  const kustomization = readKustomization(directory);
  const problems = [];
  const need = (reference, what) => {
    const file = path.join(directory, reference);
    const present =
      what === 'resource' && fs.existsSync(file) && fs.statSync(file).isDirectory()
        ? fs.existsSync(path.join(file, 'kustomization.yaml'))
        : fs.existsSync(file);
    if (!present) problems.push(`${path.join(directory, 'kustomization.yaml')}: ${what} ${reference} does not exist`);
  };
  for (const resource of kustomization.resources ?? []) need(resource, 'resource');
  for (const patch of kustomization.patches ?? []) if (patch.path) need(patch.path, 'patch');
  for (const generator of kustomization.configMapGenerator ?? []) for (const file of generator.files ?? []) need(file.split('=').at(-1), 'file');
  return problems;
}

function generateConfigMap(directory, generator) {
  const data = {};
  for (const literal of generator.literals ?? []) {
    const [, key, value] = /^([^=]+)=([\s\S]*)$/.exec(literal);
    data[key] = value;
  }
  for (const entry of generator.files ?? []) {
    const [key, file] = entry.includes('=') ? entry.split('=') : [path.basename(entry), entry];
    data[key] = fs.readFileSync(path.join(directory, file), 'utf8');
  }
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: generator.name }, data };
}

function applyPatch(objects, directory, patch) {
  if (patch.path) {
    for (const document of yamlDocuments(path.join(directory, patch.path))) {
      const index = objects.findIndex((object) => sameObject(object, document));
      if (index === -1) throw new Error(`${patch.path}: no ${document.kind} ${document.metadata?.name} to patch`);
      objects[index] = strategicMerge(objects[index], document);
    }
    return objects;
  }
  const { kind, name, ...rest } = patch.target;
  if (Object.keys(rest).length) throw new Error(`patch target ${Object.keys(rest).join(', ')} is outside the subset`);
  const targeted = (object) => object.kind === kind && (name === undefined || object.metadata.name === name);
  const body = YAML.parse(patch.patch, yamlOptions);
  if (isMap(body) && body.$patch === 'delete') return objects.filter((object) => !targeted(object));
  return objects.map((object) => (!targeted(object) ? object : Array.isArray(body) ? jsonPatch(object, body) : strategicMerge(object, body)));
}

/** The objects `kustomize build <directory>` would print, within the subset above. */
export function build(directory) {
  const kustomization = readKustomization(directory);
  let objects = (kustomization.resources ?? []).flatMap((resource) => {
    const file = path.join(directory, resource);
    return fs.statSync(file).isDirectory() ? build(file) : yamlDocuments(file);
  });
  for (const generator of kustomization.configMapGenerator ?? []) {
    const generated = generateConfigMap(directory, generator);
    const index = objects.findIndex((object) => sameObject(object, generated));
    if (generator.behavior === 'merge') {
      if (index === -1) throw new Error(`configMapGenerator ${generator.name}: nothing to merge into`);
      objects[index] = strategicMerge(objects[index], { data: generated.data });
    } else if (index !== -1) throw new Error(`configMapGenerator ${generator.name}: already exists (behavior: merge?)`);
    else objects.push(generated);
  }
  for (const patch of kustomization.patches ?? []) objects = applyPatch(objects, directory, patch);
  return objects.map((original) => {
    const object = clone(original);
    if (kustomization.namespace && object.kind !== 'Namespace') object.metadata.namespace = kustomization.namespace;
    for (const { pairs, includeSelectors, includeTemplates } of kustomization.labels ?? []) {
      if (includeSelectors) throw new Error('labels with includeSelectors are outside the subset');
      object.metadata.labels = { ...object.metadata.labels, ...pairs };
      const template = podTemplate(object);
      if (includeTemplates && template) template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...pairs } };
    }
    for (const container of podTemplate(object)?.spec?.containers ?? []) {
      const [, image, tag] = /^(.*?)(?::([^:/]+))?$/.exec(container.image);
      const rule = (kustomization.images ?? []).find((candidate) => candidate.name === image);
      if (rule) container.image = `${rule.newName ?? image}:${rule.newTag ?? tag ?? 'latest'}`;
    }
    const replicas = (kustomization.replicas ?? []).find((rule) => object.kind === 'Deployment' && rule.name === object.metadata.name);
    if (replicas) object.spec.replicas = replicas.count;
    return object;
  });
}
