import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { sortTags, type OpenApiDocument, type OpenApiTag } from './openapi.js';

/**
 * A service's part as the gateway fetches it: read leniently (what this code does not merge is
 * kept as it came), never cast (style rule 12).
 */
export const openApiPartSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  tags: z.array(z.looseObject({ name: z.string() })).optional(),
});

export interface OpenApiPart {
  /** Who answered it (a service's name), for the conflicts. */
  source: string;
  document: OpenApiDocument;
}

export interface MergedOpenApi {
  document: OpenApiDocument;
  /**
   * What two parts both declared differently (an operation on the same path and method, a
   * component of the same name): the first part's is kept. Never expected from one release of
   * the services (the route table gives every path one owner); a rolling upgrade may show some.
   */
  conflicts: string[];
}

/** `base` (its info and document-level fields kept) with every part's paths, components and tags added. */
export function mergeOpenApiDocuments(base: OpenApiDocument, parts: readonly OpenApiPart[]): MergedOpenApi {
  const conflicts: string[] = [];
  const paths: OpenApiDocument['paths'] = structuredClone(base.paths);
  const components: NonNullable<OpenApiDocument['components']> = structuredClone(base.components ?? {});
  const tags = new Map<string, OpenApiTag>((base.tags ?? []).map((tag) => [tag.name, tag]));

  for (const { source, document } of parts) {
    for (const [path, item] of Object.entries(document.paths)) {
      const merged = (paths[path] ??= {});
      for (const [method, operation] of Object.entries(item)) {
        if (!(method in merged)) merged[method] = structuredClone(operation);
        else if (!isDeepStrictEqual(merged[method], operation)) conflicts.push(`${source}: ${method.toUpperCase()} ${path} is declared by another service too`);
      }
    }
    for (const [section, entries] of Object.entries(document.components ?? {})) {
      const merged = (components[section] ??= {});
      for (const [name, value] of Object.entries(entries)) {
        if (!(name in merged)) merged[name] = structuredClone(value);
        else if (!isDeepStrictEqual(merged[name], value)) conflicts.push(`${source}: components.${section}.${name} differs from another service's`);
      }
    }
    for (const tag of document.tags ?? []) if (!tags.has(tag.name)) tags.set(tag.name, structuredClone(tag));
  }

  return { document: { ...base, paths, components, tags: sortTags([...tags.values()]) }, conflicts };
}
