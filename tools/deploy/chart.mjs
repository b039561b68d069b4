// The Helm chart deploy/helm/aigw for the tests (tools/deploy/test/chart.test.ts): rendered with
// the test-only renderer of helm-template.mjs, and checked without rendering: every block closed,
// every .Values path in values.yaml, every include defined.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { ACTION, createRenderer, parseTemplate } from './helm-template.mjs';
import { root, yamlDocuments, yamlOptions } from './manifests.mjs';

export const chartDirectory = path.join(root, 'deploy/helm/aigw');

const isMap = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `values` with `overrides` laid over them as Helm lays -f files and --set: maps merge, null deletes a key. */
export function coalesce(values, overrides) {
  const merged = { ...values };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === null) delete merged[key];
    else merged[key] = isMap(value) && isMap(merged[key]) ? coalesce(merged[key], value) : value;
  }
  return merged;
}

/** The chart's template files (relative to the chart), helpers and NOTES.txt included. */
export function templateFiles(directory = chartDirectory) {
  return fs
    .readdirSync(path.join(directory, 'templates'))
    .sort()
    .map((file) => `templates/${file}`);
}

/**
 * Renders the chart as `helm template` would: each template file's text by its name, and NOTES.txt's.
 * `valueFiles` (paths relative to the chart) are laid over values.yaml in order, then `values`.
 */
export function renderChart({ valueFiles = [], values = {}, release = { Name: 'aigw', Namespace: 'aigw' }, directory = chartDirectory } = {}) {
  const read = (file) => fs.readFileSync(path.join(directory, file), 'utf8');
  const readYaml = (file) => yamlDocuments(path.join(directory, file))[0];
  const chart = readYaml('Chart.yaml');
  const merged = [...valueFiles.map(readYaml), values].reduce(coalesce, readYaml('values.yaml'));
  const data = {
    Values: merged,
    Release: { ...release, Service: 'Helm' },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
    Files: { Get: read },
  };
  const defines = {};
  const trees = Object.fromEntries(templateFiles(directory).map((file) => [file, parseTemplate(read(file), defines).nodes]));
  const render = createRenderer(defines);
  const manifests = {};
  for (const [file, nodes] of Object.entries(trees)) if (file.endsWith('.yaml')) manifests[file] = render(nodes, data);
  return { manifests, notes: render(trees['templates/NOTES.txt'], data) };
}

/** The Kubernetes objects of a rendering, in file order (empty documents dropped). */
export function renderedObjects(rendering) {
  return Object.entries(rendering.manifests).flatMap(([file, text]) =>
    YAML.parseAllDocuments(text, yamlOptions).flatMap((document) => {
      if (document.errors.length) throw new Error(`${file} renders invalid YAML: ${document.errors[0].message}\n${text}`);
      const object = document.toJS();
      return object == null ? [] : [object];
    }),
  );
}

/** The action texts of a template, comments included, in order. */
export function templateActions(text) {
  return [...text.matchAll(ACTION)].map((match) => match[2]);
}

/**
 * What is wrong with a set of templates without rendering them: an unclosed block, an `end` or
 * `else` with no block, a `.Values` path values.yaml lacks, an `include` of an undefined template,
 * a `define` outside templates/_helpers.tpl.
 * `files` maps a file name to its text.
 */
export function templateProblems(files, values) {
  const problems = [];
  const defined = new Set();
  const included = [];
  for (const [file, text] of Object.entries(files)) {
    const open = [];
    for (const action of templateActions(text)) {
      const keyword = action.split(/\s/, 1)[0];
      if (['if', 'range', 'with', 'define'].includes(keyword)) open.push(keyword);
      else if (keyword === 'else' && !['if', 'range', 'with'].includes(open.at(-1))) problems.push(`${file}: {{ ${action} }} outside if, range or with`);
      else if (keyword === 'end' && !open.pop()) problems.push(`${file}: {{ end }} without an open block`);
      if (keyword === 'define' && !file.endsWith('/_helpers.tpl')) problems.push(`${file}: {{ ${action} }} belongs in templates/_helpers.tpl`);
      if (keyword === 'define') defined.add(JSON.parse(action.slice('define'.length)));
      for (const [, name] of action.matchAll(/\b(?:include|template)\s+"([^"]+)"/g)) included.push({ file, name });
      for (const [, dotted] of action.matchAll(/\.Values((?:\.\w+)+)/g)) {
        const fields = dotted.slice(1).split('.');
        const found = fields.every((field, index) => {
          const parent = fields.slice(0, index).reduce((value, key) => value[key], values);
          return isMap(parent) && Object.hasOwn(parent, field);
        });
        if (!found) problems.push(`${file}: .Values${dotted} is not in values.yaml`);
      }
    }
    for (const keyword of open) problems.push(`${file}: {{ ${keyword} }} without {{ end }}`);
  }
  for (const { file, name } of included) if (!defined.has(name)) problems.push(`${file}: include "${name}" is not defined`);
  return problems;
}
