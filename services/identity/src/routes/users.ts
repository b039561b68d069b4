import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createUserBodySchema,
  idSchema,
  manageUserBodySchema,
  pageQuerySchema,
  updateUserBodySchema,
  userSearchQuerySchema,
  type ManageUserResult,
} from '@aigw/contracts';
import { auditSourceOf, requireAuth } from '@aigw/platform';
import type { IdentityContext } from '../context.js';
import { createUser, editUser, getUser, listUsers, manageUser } from '../user-admin.js';

/** User management for admins (user-admin.ts: the level rules, the audit records). */
export const userRoutes: FastifyPluginAsyncZod<{ context: IdentityContext }> = async (app, { context }) => {
  const admin = { access: 'admin' } as const;

  app.get('/api/user/', { schema: { querystring: pageQuerySchema }, config: admin }, async (request) => {
    return { success: true, message: '', data: await listUsers(context, request.query) };
  });

  app.get('/api/user/search', { schema: { querystring: pageQuerySchema.extend(userSearchQuerySchema.shape) }, config: admin }, async (request) => {
    return { success: true, message: '', data: await listUsers(context, request.query) };
  });

  app.get('/api/user/:id', { schema: { params: z.object({ id: idSchema }) }, config: admin }, async (request) => {
    return { success: true, message: '', data: await getUser(context, requireAuth(request).role, request.params.id) };
  });

  app.post('/api/user/', { schema: { body: createUserBodySchema }, config: admin }, async (request) => {
    await createUser(context, request.body, auditSourceOf(request));
    return { success: true, message: '' };
  });

  app.put('/api/user/', { schema: { body: updateUserBodySchema }, config: admin }, async (request) => {
    await editUser(context, request.body, auditSourceOf(request));
    return { success: true, message: '' };
  });

  app.post('/api/user/manage', { schema: { body: manageUserBodySchema }, config: admin }, async (request) => {
    const data = await manageUser(context, request.body.id, request.body.action, auditSourceOf(request));
    return { success: true, message: '', data: data satisfies ManageUserResult };
  });
};
