// A test-only renderer for the part of Helm's template language deploy/helm/aigw uses: no helm
// binary is installed here and none may be downloaded. It is not Helm. The subset: actions with
// the trim markers {{- and -}}, comments {{/* */}}; if / else if / else, range (a list, or a map
// in sorted key order; `$v :=` or `$k, $v :=`), with, define, end; `$x := pipeline` and `$`;
// pipelines `a | b` (a's value is b's last argument) and parenthesised ones; operands `.`, `.a.b`,
// `$x.a.b`, "strings", integers, true, false, and a field holding a function (`.Files.Get "x"`)
// called with the arguments; the functions of `functions` below, as Helm and sprig define them.
// Go's rules kept: a missing map key is empty and prints nothing (Helm's missingkey=zero), a field
// of nothing fails ("nil pointer evaluating"), false, 0, "", empty maps and lists are false,
// ranging over nothing runs the else branch. Anything else throws, so the chart cannot outgrow
// the renderer unnoticed. Differences: printing a number of a million or more throws (Helm would
// print 1e+06); toYaml may quote differently from Helm, never changing a value.
import crypto from 'node:crypto';
import YAML from 'yaml';

/** One action: `{{- ` trims the text before it, ` -}}` the text after. */
export const ACTION = /\{\{(-\s)?\s*([\s\S]*?)\s*(\s-)?\}\}/g;
const WORD = /"(?:[^"\\]|\\.)*"|\(|\)|\||[^\s()|]+/g;

const isMap = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const truthy = (value) => !(value == null || value === false || value === 0 || value === '' || (typeof value === 'object' && Object.keys(value).length === 0));
const sortKeys = (value) => (isMap(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))) : value);

const raise = (message) => {
  throw new Error(message);
};

function print(value) {
  if (value == null) return '';
  if (typeof value === 'number' && Math.abs(value) >= 1e6) throw new Error(`printing ${value}: Helm would print it in exponent form; quote it in values`);
  if (typeof value === 'object') throw new Error('printing a map or a list: use toYaml or toJson');
  return String(value);
}

/** Text and action tokens, with the trim markers applied and comments dropped. */
function tokenize(source) {
  const parts = source.split(ACTION); // text, "{{-", action, "-}}", text, ...
  const tokens = [];
  for (let index = 0; index < parts.length; index += 4) {
    let text = parts[index];
    if (parts[index - 1]) text = text.trimStart();
    if (parts[index + 1]) text = text.trimEnd();
    if (text) tokens.push({ text });
    if (index + 2 < parts.length && !parts[index + 2].startsWith('/*')) tokens.push({ action: parts[index + 2] });
  }
  return tokens;
}

/** The tree of a template: text, actions and blocks; `define`s go into `defines`. */
export function parseTemplate(source, defines = {}) {
  const tokens = tokenize(source);
  let at = 0;
  const list = (stops) => {
    const nodes = [];
    while (at < tokens.length) {
      const token = tokens[at++];
      if (token.text !== undefined) nodes.push(token);
      else {
        const [, keyword, rest] = /^(\S+)\s*([\s\S]*)$/.exec(token.action);
        if (stops.includes(keyword)) return { nodes, stop: keyword, rest };
        if (keyword === 'end' || keyword === 'else') throw new Error(`{{ ${keyword} }} without an open block`);
        if (['template', 'block', 'break', 'continue'].includes(keyword)) throw new Error(`unsupported: {{ ${keyword} }}`);
        if (keyword === 'define') defines[JSON.parse(rest)] = list(['end']).nodes;
        else nodes.push(['if', 'range', 'with'].includes(keyword) ? block(keyword, rest) : { pipeline: token.action });
      }
    }
    if (stops.length) throw new Error(`a block is missing its {{ end }}`);
    return { nodes };
  };
  const block = (keyword, expression) => {
    const { nodes, stop, rest } = list(['else', 'end']);
    if (stop === 'end') return { keyword, expression, body: nodes, otherwise: [] };
    if (/^if\s/.test(rest)) return { keyword, expression, body: nodes, otherwise: [block('if', rest.slice(3))] };
    return { keyword, expression, body: nodes, otherwise: list(['end']).nodes };
  };
  return { nodes: list([]).nodes, defines };
}

/** [[operand, ...], ...]: the commands of a pipeline; an operand is a word or a nested pipeline. */
function parsePipeline(words) {
  const commands = [[]];
  while (words.length) {
    const word = words.shift();
    if (word === ')') return commands;
    if (word === '|') commands.push([]);
    else commands.at(-1).push(word === '(' ? parsePipeline(words) : word);
  }
  return commands;
}

/** A function rendering a parsed template's nodes with some data; `include` finds `defines`. */
export function createRenderer(defines) {
  const functions = {
    include: (name, data) => {
      if (!defines[name]) throw new Error(`include "${name}": no such template`);
      return exec(defines[name], { dot: data, variables: { $: data } });
    },
    dict: (...pairs) => Object.fromEntries(pairs.flatMap((value, index) => (index % 2 ? [] : [[value, pairs[index + 1]]]))),
    merge: (target, ...sources) => {
      for (const source of sources)
        for (const [key, value] of Object.entries(source))
          target[key] = isMap(target[key]) && isMap(value) ? functions.merge(target[key], value) : truthy(target[key]) ? target[key] : value;
      return target;
    },
    default: (fallback, value) => (truthy(value) ? value : fallback),
    required: (message, value) => (value == null || value === '' ? raise(message) : value),
    fail: raise,
    quote: (value) => (value == null ? '' : JSON.stringify(print(value))),
    toYaml: (value) => YAML.stringify(value ?? null, { version: '1.1', sortMapEntries: true, lineWidth: 0 }).trimEnd(), // 1.1: quotes off, yes, ...
    toJson: (value) => JSON.stringify(value ?? null, (_key, inner) => sortKeys(inner)),
    indent: (width, text) => text.replace(/^/gm, ' '.repeat(width)),
    nindent: (width, text) => `\n${functions.indent(width, text)}`,
    printf: (format, ...values) => format.replace(/%[sdv]/g, () => print(values.shift())),
    sha256sum: (text) => crypto.createHash('sha256').update(text).digest('hex'),
    eq: (value, ...others) => others.some((other) => other === value),
    ne: (value, other) => value !== other,
    not: (value) => !truthy(value),
    and: (...values) => values.reduce((result, value) => (truthy(result) ? value : result)),
    or: (...values) => values.reduce((result, value) => (truthy(result) ? result : value)),
  };

  function operand(word, scope) {
    if (Array.isArray(word)) return pipeline(word, scope);
    if (word.startsWith('"')) return JSON.parse(word);
    if (/^-?\d+$/.test(word)) return Number(word);
    if (word === 'true' || word === 'false') return word === 'true';
    if (!/^[.$]/.test(word)) throw new Error(`unsupported operand: ${word}`);
    const [head, ...fields] = word.split('.');
    if (head && !(head in scope.variables)) throw new Error(`undefined variable ${head}`);
    let value = head ? scope.variables[head] : scope.dot;
    for (const field of fields.filter(Boolean)) {
      if (value == null) throw new Error(`nil pointer evaluating ${word}`);
      if (typeof value !== 'object') throw new Error(`can't evaluate field ${field} of ${word}`);
      value = Object.hasOwn(value, field) ? value[field] : undefined;
    }
    return value;
  }

  function pipeline(commands, scope) {
    return commands.reduce((piped, [head, ...words], index) => {
      const values = () => [...words.map((word) => operand(word, scope)), ...(index ? [piped] : [])];
      if (typeof head === 'string' && /^[a-z]\w*$/i.test(head) && head !== 'true' && head !== 'false') {
        if (!functions[head]) throw new Error(`unsupported function: ${head}`);
        return functions[head](...values());
      }
      const value = operand(head, scope);
      if (typeof value === 'function') return value(...values());
      if (words.length || index) throw new Error(`${head} is not a function: it takes no arguments`);
      return value;
    }, undefined);
  }

  const evaluate = (text, scope) => pipeline(parsePipeline(text.match(WORD)), scope);
  const child = (scope, dot, variables = {}) => ({ dot, variables: Object.assign(Object.create(scope.variables), variables) });

  function exec(nodes, scope) {
    return nodes.map((node) => node.text ?? (node.keyword ? execBlock(node, scope) : execAction(node.pipeline, scope))).join('');
  }

  function execAction(text, scope) {
    const declaration = /^(\$\w+)\s*:=\s*([\s\S]+)$/.exec(text);
    if (!declaration) return print(evaluate(text, scope));
    scope.variables[declaration[1]] = evaluate(declaration[2], scope);
    return '';
  }

  function execBlock({ keyword, expression, body, otherwise }, scope) {
    if (keyword === 'if') return exec(truthy(evaluate(expression, scope)) ? body : otherwise, child(scope, scope.dot));
    if (keyword === 'with') {
      const value = evaluate(expression, scope);
      return truthy(value) ? exec(body, child(scope, value)) : exec(otherwise, child(scope, scope.dot));
    }
    const [, first, second, collection] = /^(?:(\$\w+)(?:\s*,\s*(\$\w+))?\s*:=\s*)?([\s\S]+)$/.exec(expression);
    const value = evaluate(collection, scope);
    if (value != null && typeof value !== 'object') throw new Error(`range over ${typeof value}`);
    const entries = value == null ? [] : Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(sortKeys(value));
    if (!entries.length) return exec(otherwise, child(scope, scope.dot));
    return entries.map(([key, item]) => exec(body, child(scope, item, second ? { [first]: key, [second]: item } : first ? { [first]: item } : {}))).join('');
  }

  return (nodes, data) => exec(nodes, { dot: data, variables: { $: data } });
}
