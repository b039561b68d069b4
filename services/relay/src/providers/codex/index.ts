import type { ProviderDefinition } from '../types.js';
import { codexHeaders, codexResponsesUrl } from './api.js';
import { codexAccessToken, codexKey } from './auth.js';
import { codexError } from './error.js';
import { codexResponsesBody, responsesUsageOf } from './responses.js';

/**
 * Codex (channel type 57): a ChatGPT account (the Codex CLI's login) speaking OpenAI's Responses
 * API at `{base}/backend-api/codex/responses`. The key is the JSON of the account's tokens
 * (auth.ts); every call carries the stored access token, or one refreshed through the relay's
 * cached exchange once it has expired (`authorize`). It serves `/v1/responses` and nothing else,
 * as in the established product, always streamed upstream (a whole answer is the response the
 * stream ends with, `streamsOnly`); it stores nothing,
 * so it has no `passthrough.get`: a stored response's GET answers 404.
 */
export const codexProvider: ProviderDefinition = {
  id: 'codex',
  operations: ['responses'],
  streamUsage: false,
  passthrough: {
    request(path, body, context) {
      if (path !== '/v1/responses') throw new Error(`the Codex provider serves no ${path}`);
      const converted = codexResponsesBody(body, context);
      return {
        method: 'POST',
        url: codexResponsesUrl(context),
        headers: codexHeaders(codexKey(context.channel, context.key).account_id),
        body: JSON.stringify(converted.body),
        ...(converted.warnings.length > 0 ? { warnings: converted.warnings } : {}),
      };
    },
    usage: responsesUsageOf,
    streamsOnly: true,
  },
  async authorize(request, context, tools) {
    return { ...request, headers: { ...request.headers, Authorization: `Bearer ${await codexAccessToken(context, tools)}` } };
  },
  error: codexError,
};
