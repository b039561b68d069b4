import { msg } from '@aigw/contracts';

/**
 * Bounds on the shape of a parsed JSON body (docs/architecture.md section 6.6, test D3). JSON.parse
 * itself does not recurse, but much of what runs after it does (JSON.stringify, schema walks,
 * converters): a body nested 10,000 deep overflowed the stack there and answered 500. Every app
 * refuses such a body before validation, with an explicit-stack walk that no depth can overflow.
 */

/** Deepest nesting of objects and arrays a body may have; the body itself is level 1. */
export const MAX_JSON_DEPTH = 128;

/**
 * Most values (objects, arrays and scalars) a body may hold. Far above any real request (an
 * embeddings batch at OpenAI's limits holds at most 300,000 token ids), it bounds what every
 * later walk over the body costs.
 */
export const MAX_JSON_VALUES = 1_000_000;

export interface JsonShapeLimits {
  maxDepth: number;
  maxValues: number;
}

/** What is wrong with a body: the top-level field it is in ('' for the body as a whole) and why (`msg(id)`, after the field). */
export interface JsonShapeProblem {
  field: string;
  message: string;
}

const defaultLimits: JsonShapeLimits = { maxDepth: MAX_JSON_DEPTH, maxValues: MAX_JSON_VALUES };

/**
 * The first limit a parsed body breaks, or null. Walks with an explicit stack and stops at the
 * first container beyond the depth limit, so its cost is bounded by the values it may hold.
 * Only parsed data is walked (plain objects and arrays): a body a parser left as a stream or a
 * Buffer (the gateway's proxy, raw-body routes) is not.
 */
export function jsonShapeProblem(value: unknown, limits: JsonShapeLimits = defaultLimits): JsonShapeProblem | null {
  const containers: object[] = [];
  const depths: number[] = [];
  const fields: string[] = [];
  let count = 1;
  if (isParsedContainer(value)) {
    containers.push(value);
    depths.push(1);
    fields.push('');
  }
  while (containers.length > 0) {
    const container = containers.pop()!;
    const depth = depths.pop()!;
    const field = fields.pop()!;
    const keys = Array.isArray(container) ? null : Object.keys(container);
    const size = keys ? keys.length : (container as unknown[]).length;
    count += size;
    if (count > limits.maxValues) {
      return { field, message: `${field ? `${field}: ` : ''}${msg('json.too_many_values', { max: String(limits.maxValues) })}` };
    }
    for (let index = 0; index < size; index++) {
      const child = keys ? (container as Record<string, unknown>)[keys[index]!] : (container as unknown[])[index];
      if (typeof child !== 'object' || child === null) continue;
      // Children of the body name their field; deeper ones keep their top-level field.
      const childField = depth === 1 ? (keys ? keys[index]! : String(index)) : field;
      if (depth + 1 > limits.maxDepth) {
        return { field: childField, message: `${childField ? `${childField}: ` : ''}${msg('json.too_deep', { max: String(limits.maxDepth) })}` };
      }
      containers.push(child);
      depths.push(depth + 1);
      fields.push(childField);
    }
  }
  return null;
}

function isParsedContainer(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
