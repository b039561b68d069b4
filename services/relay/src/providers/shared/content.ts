/** Helpers the converting providers share when they take OpenAI messages apart. */

/** `data:image/png;base64,....` -> media type and data; null for anything else. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | null {
  if (!url.startsWith('data:')) return null;
  const comma = url.indexOf(',');
  const header = comma === -1 ? '' : url.slice('data:'.length, comma);
  if (!header.endsWith(';base64')) return null;
  return { mediaType: header.slice(0, -';base64'.length), data: url.slice(comma + 1) };
}

/** The JSON object a string holds, or null (not JSON, or JSON that is not an object). */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return Object.fromEntries(Object.entries(value));
  } catch {
    // not JSON
  }
  return null;
}

/**
 * OpenAI tool-call arguments (a JSON string) as the object native protocols want; arguments
 * that are not an object are replaced by `{}` and reported.
 */
export function toolArguments(text: string | null | undefined, warnings: string[]): Record<string, unknown> {
  if (!text) return {};
  const value = parseJsonObject(text);
  if (value) return value;
  warnings.push('tool call arguments that are not a JSON object were replaced by {}');
  return {};
}

/** A JSON object (not null, not an array). */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
