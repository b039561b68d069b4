import type { z } from 'zod';

/** A 2xx upstream answer that is not the JSON the protocol promises. The relay answers 502. */
export class InvalidUpstreamResponseError extends Error {
  readonly code = 'bad_response_body';
  readonly statusCode = 502;
  constructor(provider: string, detail: string) {
    super(`${provider} upstream answered with an unexpected body: ${detail}`);
    this.name = 'InvalidUpstreamResponseError';
  }
}

/** Parses an upstream answer with its (lenient) schema, or throws the typed error above. */
export function parseUpstream<T>(schema: z.ZodType<T>, json: unknown, provider: string): T {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new InvalidUpstreamResponseError(provider, issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'malformed');
}

/** JSON.parse that returns undefined instead of throwing (stream events can be cut or garbled). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
