import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createTokenBodySchema, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, pageQuerySchema, updateTokenBodySchema, type TokenKey, msg } from '@aigw/contracts';
import { requireAuth, TooManyRequestsError } from '@aigw/platform';
import type { BillingContext } from '../context.js';
import { createTokens, deleteToken, getToken, listTokens, revealKey, revealKeys, updateToken, type TokenOwner } from '../tokens.js';

const idParams = z.object({ id: z.coerce.number().int().positive() });
const pageSize = z.coerce.number().int().min(1).max(PAGE_SIZE_MAX).optional();
/** The console sends `size` for tokens (established 2.1); `page_size` is accepted too. p 0 and 1 are the first page. */
const pageQuery = z.object({ p: pageQuerySchema.shape.p, size: pageSize, page_size: pageSize });
const searchQuery = pageQuery.extend({
  keyword: z.string().trim().max(64).default(''),
  token: z.string().trim().max(128).default(''),
});
/** A batch reveal: at most one full page of tokens, each id once. */
const revealBody = z.object({
  ids: z
    .array(z.number().int().positive())
    .min(1)
    .max(PAGE_SIZE_MAX)
    .refine((ids) => new Set(ids).size === ids.length, { message: msg('tokens.ids_duplicate') }),
});
const updateQuery = z.object({
  status_only: z
    .string()
    .optional()
    .transform((value) => value === 'true'),
});

/** Reveals per user per minute: a stolen session cannot dump every key at once. */
const REVEALS_PER_MINUTE = 30;

/** The caller's own sk- tokens. Every route is scoped to the caller, admins included: tokens are personal. */
export const tokenRoutes: FastifyPluginAsyncZod<{ context: BillingContext }> = async (app, { context }) => {
  const owner = (request: FastifyRequest): TokenOwner => {
    const auth = requireAuth(request);
    return { userId: auth.userId, group: auth.group };
  };
  const paging = (query: z.infer<typeof pageQuery>) => ({ page: query.p, pageSize: query.size ?? query.page_size ?? PAGE_SIZE_DEFAULT });

  app.get('/api/token/', { schema: { querystring: pageQuery }, config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await listTokens(context, owner(request).userId, paging(request.query)) };
  });

  app.get('/api/token/search', { schema: { querystring: searchQuery }, config: { access: 'user' } }, async (request) => {
    const { keyword, token } = request.query;
    return { success: true, message: '', data: await listTokens(context, owner(request).userId, { ...paging(request.query), keyword, token }) };
  });

  app.get('/api/token/:id', { schema: { params: idParams }, config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await getToken(context, owner(request).userId, request.params.id) };
  });

  app.post('/api/token/', { schema: { body: createTokenBodySchema }, config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await createTokens(context, owner(request), request.body) };
  });

  app.put('/api/token/', { schema: { querystring: updateQuery, body: updateTokenBodySchema }, config: { access: 'user' } }, async (request) => {
    return { success: true, message: '', data: await updateToken(context, owner(request), request.body, request.query.status_only) };
  });

  app.delete('/api/token/:id', { schema: { params: idParams }, config: { access: 'user' } }, async (request) => {
    await deleteToken(context, owner(request).userId, request.params.id);
    return { success: true, message: '' };
  });

  /** Counts one reveal against the caller's per-minute limit; refused past it. */
  const countReveal = async (userId: number) => {
    if ((await context.kv.increment(`token-reveal:${userId}`, { ttlMs: 60_000 })) > REVEALS_PER_MINUTE) throw new TooManyRequestsError();
  };

  app.post('/api/token/:id/key', { schema: { params: idParams }, config: { access: 'user' } }, async (request) => {
    const { userId } = owner(request);
    await countReveal(userId);
    const key = await revealKey(context, userId, request.params.id);
    context.logger.info({ userId, tokenId: request.params.id }, 'token key revealed'); // audit trail, never the key
    return { success: true, message: '', data: { key } satisfies TokenKey };
  });

  // The console's "copy selected": a whole page of keys in one call, counted as one reveal.
  app.post('/api/token/keys', { schema: { body: revealBody }, config: { access: 'user' } }, async (request) => {
    const { userId } = owner(request);
    await countReveal(userId);
    const keys = await revealKeys(context, userId, request.body.ids);
    context.logger.info({ userId, tokenIds: request.body.ids }, 'token keys revealed'); // audit trail, never the keys
    return { success: true, message: '', data: keys };
  });
};
