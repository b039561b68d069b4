import { z } from 'zod';
import type { ProviderContext, Usage } from '../types.js';
import { InvalidChatRequestError } from '../shared/chat-request.js';
import { parseUpstream } from '../shared/upstream-response.js';

const documentSchema = z.union([z.string(), z.object({ text: z.string() })]);
const rerankRequestSchema = z.object({
  query: z.string(),
  documents: z.array(documentSchema),
  top_n: z.number().nullish(),
  return_documents: z.boolean().nullish(),
});

/** Rerank parameters (Jina's shape, which /v1/rerank takes) this converter maps; any other one present is dropped with a warning. */
const mappedKeys = new Set(['model', 'query', 'documents', 'top_n', 'return_documents']);

/**
 * `/v1/rerank` (Jina's shape, checked by the operation) -> DashScope's text-rerank service
 * (`POST /api/v1/services/rerank/text-rerank/text-rerank`): `{model, input: {query, documents},
 * parameters: {top_n, return_documents}}`, the documents as texts, the documents asked back unless
 * the client said `return_documents: false` (Jina's default is to return them).
 */
export function dashScopeRerankBody(body: Record<string, unknown>, context: ProviderContext): { body: Record<string, unknown>; warnings: string[] } {
  const parsed = rerankRequestSchema.safeParse(body);
  if (!parsed.success) throw new InvalidChatRequestError(`invalid rerank request: ${parsed.error.issues[0]?.message ?? 'malformed body'}`);
  const request = parsed.data;
  const warnings = Object.keys(body)
    .filter((key) => !mappedKeys.has(key) && body[key] != null)
    .map((key) => `parameter "${key}" is not supported by DashScope's rerank and was dropped`);
  const parameters: Record<string, unknown> = { return_documents: request.return_documents !== false };
  if (request.top_n != null) parameters.top_n = request.top_n;
  const out = {
    model: context.upstreamModel,
    input: { query: request.query, documents: request.documents.map(textOf) },
    parameters,
  };
  return { body: { ...out, ...context.channel.param_override }, warnings };
}

const textOf = (document: z.infer<typeof documentSchema>) => (typeof document === 'string' ? document : document.text);

const rerankResponseSchema = z.object({
  request_id: z.string().nullish(),
  output: z.object({
    results: z.array(z.object({ index: z.number(), relevance_score: z.number(), document: z.object({ text: z.string().nullish() }).nullish() })),
  }),
  usage: z.object({ total_tokens: z.number().nullish() }).nullish(),
});

/** The tokens DashScope counted for a rerank (`usage.total_tokens`: the query and the documents), as prompt tokens; null when it gave none. */
function rerankUsage(tokens: number | null | undefined): Usage | null {
  return tokens != null && Number.isFinite(tokens) ? { prompt_tokens: tokens, completion_tokens: 0, cached_tokens: 0 } : null;
}

/**
 * A DashScope rerank answer in Jina's shape: `{id, model, results: [{index, relevance_score,
 * document: {text}}], usage}`, each document the upstream's text, else the request's (unless the
 * client said `return_documents: false`); the usage DashScope's `total_tokens`.
 */
export function dashScopeRerankAnswer(
  json: unknown,
  request: Record<string, unknown>,
  context: ProviderContext,
): { body: Record<string, unknown>; usage: Usage | null } {
  const answer = parseUpstream(rerankResponseSchema, json, 'ali');
  const documents = rerankRequestSchema.shape.documents.safeParse(request.documents).data ?? [];
  const withDocuments = request.return_documents !== false;
  const usage = rerankUsage(answer.usage?.total_tokens);
  const body: Record<string, unknown> = {
    ...(answer.request_id ? { id: answer.request_id } : {}),
    model: context.upstreamModel,
    results: answer.output.results.map(({ index, relevance_score, document }) => {
      const sent = documents[index];
      const text = document?.text ?? (sent === undefined ? undefined : textOf(sent));
      return { index, relevance_score, ...(withDocuments && text != null ? { document: { text } } : {}) };
    }),
  };
  if (usage) body.usage = { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens };
  return { body, usage };
}
