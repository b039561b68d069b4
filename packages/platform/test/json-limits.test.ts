import { Readable } from 'node:stream';
import { localizeMessage } from '@aigw/contracts';
import { jsonShapeProblem, MAX_JSON_DEPTH, type JsonShapeLimits } from '../src/json-limits';

/** The problem as an English-speaking caller reads it. */
function problem(value: unknown, limits?: JsonShapeLimits) {
  const found = jsonShapeProblem(value, limits);
  return found && { ...found, message: localizeMessage(found.message, 'en-US') };
}

/** `levels` objects, each the only member of the one above, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 1; level < levels; level++) value = level % 2 ? { a: value } : [value];
  return levels > 0 ? { a: value } : value;
}

describe('jsonShapeProblem', () => {
  it('accepts scalars, empty bodies and anything up to the depth limit', () => {
    for (const value of [undefined, null, 'text', 1, true, {}, []]) expect(jsonShapeProblem(value)).toBeNull();
    expect(jsonShapeProblem(nested(MAX_JSON_DEPTH))).toBeNull();
  });

  it('refuses one level more, naming the top-level field it is in', () => {
    expect(problem({ ok: 1, tools: [nested(MAX_JSON_DEPTH - 1)] })).toEqual({
      field: 'tools',
      message: `tools: nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
    expect(problem([1, [nested(MAX_JSON_DEPTH - 1)]])).toEqual({ field: '1', message: `1: nested deeper than ${MAX_JSON_DEPTH} levels` });
    // In the caller's language, the field named as it is.
    expect(localizeMessage(jsonShapeProblem({ tools: [nested(MAX_JSON_DEPTH)] })!.message, 'zh-CN')).toBe(`tools: 嵌套超过 ${MAX_JSON_DEPTH} 层`);
  });

  it('leaves bodies a parser did not parse alone (a proxied stream, a Buffer)', () => {
    expect(jsonShapeProblem(Readable.from(['{}']))).toBeNull();
    expect(jsonShapeProblem(Buffer.alloc(2_000_000))).toBeNull();
  });

  it('walks a body of any depth without recursion, stopping at the limit', () => {
    expect(jsonShapeProblem({ deep: nested(1_000_000) })?.field).toBe('deep');
  });

  it('refuses more values than the limit, containers and scalars alike', () => {
    const limits = { maxDepth: 10, maxValues: 100 };
    expect(jsonShapeProblem({ list: Array.from({ length: 98 }, () => 0) }, limits)).toBeNull();
    expect(problem({ list: Array.from({ length: 99 }, () => 0) }, limits)).toEqual({
      field: 'list',
      message: 'list: the request body holds more than 100 values',
    });
    const tooMany = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`k${index}`, {}]));
    expect(problem(tooMany, limits)?.message).toBe('the request body holds more than 100 values');
    expect(localizeMessage(jsonShapeProblem(tooMany, limits)!.message, 'zh-CN')).toBe('请求体包含的值超过 100 个');
  });
});
