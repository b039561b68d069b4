import { z } from 'zod';
import type { ProviderContext } from '../types.js';
import { InvalidChatRequestError } from '../shared/chat-request.js';
import { parseUpstream } from '../shared/upstream-response.js';

const rerankRequestSchema = z.object({
  query: z.string(),
  documents: z.array(z.union([z.string(), z.object({ text: z.string() })])),
  top_n: z.number().nullish(),
  return_documents: z.boolean().nullish(),
  /** Cohere's own field, passed through when a client sends it. */
  max_tokens_per_doc: z.number().nullish(),
});

/** Rerank parameters (Jina's shape, which /v1/rerank takes) this converter maps; any other one present is dropped with a warning. */
const mappedKeys = new Set(['model', 'query', 'documents', 'top_n', 'return_documents', 'max_tokens_per_doc']);

/**
 * `/v1/rerank` (Jina's shape, checked by the operation) -> Cohere v2 rerank (`POST /v2/rerank`):
 * the documents as texts. Cohere v2 answers indexes and scores only, never the documents, so
 * `return_documents: true` cannot be honoured and is reported.
 */
export function cohereRerankBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const parsed = rerankRequestSchema.safeParse(body);
  if (!parsed.success) throw new InvalidChatRequestError(`invalid rerank request: ${parsed.error.issues[0]?.message ?? 'malformed body'}`);
  const request = parsed.data;
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by Cohere and was dropped`);
  if (request.return_documents === true) warnings.push('return_documents: Cohere answers indexes and scores only, the documents were not returned');
  const out: Record<string, unknown> = {
    model: context.upstreamModel,
    query: request.query,
    documents: request.documents.map((document) => (typeof document === 'string' ? document : document.text)),
  };
  if (request.top_n != null) out.top_n = request.top_n;
  if (request.max_tokens_per_doc != null) out.max_tokens_per_doc = request.max_tokens_per_doc;
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

const rerankResponseSchema = z.object({
  id: z.string().nullish(),
  results: z.array(z.object({ index: z.number(), relevance_score: z.number() })),
});

/**
 * A Cohere rerank answer in Jina's shape, the documents put back from the request unless the
 * client said `return_documents: false`. No usage: Cohere bills rerank in search units, not tokens
 * (a ModelPrice per call fits it).
 */
export function cohereRerankAnswer(json: unknown, request: Record<string, unknown>, context: ProviderContext): Record<string, unknown> {
  const answer = parseUpstream(rerankResponseSchema, json, 'cohere');
  const documents = rerankRequestSchema.shape.documents.safeParse(request.documents).data ?? [];
  const withDocuments = request.return_documents !== false;
  return {
    ...(answer.id ? { id: answer.id } : {}),
    model: context.upstreamModel,
    results: answer.results.map(({ index, relevance_score }) => {
      const document = documents[index];
      const text = typeof document === 'string' ? document : document?.text;
      return { index, relevance_score, ...(withDocuments && text !== undefined ? { document: { text } } : {}) };
    }),
  };
}
