import type { z } from 'zod';
import {
  msg,
  WEBHOOK_ENDPOINTS_MAX,
  type WebhookEndpoint,
  type WebhookWithSecret,
  type createWebhookBodySchema,
  type updateWebhookBodySchema,
} from '@aigw/contracts';
import { EgressBlockedError, EgressError, NotFoundError, sealSecret, UserError, type EgressClient } from '@aigw/platform';
import { WebhookEndpointEntity } from '../entities/index.js';
import type { NotifierContext } from '../context.js';
import { generateWebhookSecret } from '../domain/webhook-signature.js';

/**
 * Root's endpoint writes. Everything is validated before the one write (nothing half-written);
 * the URL passes the egress guard when saved, and again on every delivery.
 */

/** The bodies as the route schemas hand them over (parsed, defaults applied). */
export type CreateWebhook = z.output<typeof createWebhookBodySchema>;
export type UpdateWebhook = z.output<typeof updateWebhookBodySchema>;

const nowSeconds = () => Math.floor(Date.now() / 1000);
const notFound = () => new NotFoundError(msg('webhooks.not_found'));

/** The stored filter; a row written by hand that does not parse matches nothing. */
export function parseSubjects(stored: string): string[] {
  try {
    const value: unknown = JSON.parse(stored);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

/** The whitelist root sees (rule R4: no secret, sealed or not). */
export function toEndpointView(row: WebhookEndpointEntity): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    subjects: parseSubjects(row.subjects),
    description: row.description,
    enabled: row.enabled,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Refuses a URL the egress guard would refuse, naming the field. */
export async function checkDestination(egress: EgressClient, url: string): Promise<void> {
  try {
    await egress.check(url);
  } catch (error) {
    if (error instanceof EgressBlockedError) throw new UserError(`url: ${error.message}`);
    if (error instanceof EgressError && error.kind === 'dns') throw new UserError(`url: ${msg('egress.host_unresolved', { host: new URL(url).hostname })}`);
    throw error;
  }
}

export async function listEndpoints(context: NotifierContext): Promise<WebhookEndpoint[]> {
  const rows = await context.db.getRepository(WebhookEndpointEntity).find({ order: { id: 'ASC' } });
  return rows.map(toEndpointView);
}

export async function getEndpoint(context: NotifierContext, id: number): Promise<WebhookEndpointEntity> {
  const row = await context.db.getRepository(WebhookEndpointEntity).findOneBy({ id });
  if (!row) throw notFound();
  return row;
}

export async function createEndpoint(context: NotifierContext, egress: EgressClient, body: CreateWebhook): Promise<WebhookWithSecret> {
  await checkDestination(egress, body.url);
  const repository = context.db.getRepository(WebhookEndpointEntity);
  if ((await repository.count()) >= WEBHOOK_ENDPOINTS_MAX) throw new UserError(msg('webhooks.too_many', { max: String(WEBHOOK_ENDPOINTS_MAX) }));
  const secret = body.secret ?? generateWebhookSecret();
  const now = nowSeconds();
  const values = {
    url: body.url,
    subjects: JSON.stringify(body.subjects),
    description: body.description,
    enabled: body.enabled,
    secret_encrypted: sealSecret(secret, context.keySecret),
    created_at: now,
    updated_at: now,
  };
  const id = (await repository.insert({ ...values })).identifiers[0]!.id as number;
  return { ...toEndpointView(await getEndpoint(context, id)), secret };
}

export async function updateEndpoint(context: NotifierContext, egress: EgressClient, body: UpdateWebhook): Promise<WebhookEndpoint> {
  await getEndpoint(context, body.id);
  if (body.url !== undefined) await checkDestination(egress, body.url);
  const changes: Partial<WebhookEndpointEntity> = { updated_at: nowSeconds() };
  if (body.url !== undefined) changes.url = body.url;
  if (body.subjects !== undefined) changes.subjects = JSON.stringify(body.subjects);
  if (body.description !== undefined) changes.description = body.description;
  if (body.enabled !== undefined) changes.enabled = body.enabled;
  await context.db.getRepository(WebhookEndpointEntity).update({ id: body.id }, changes);
  return toEndpointView(await getEndpoint(context, body.id));
}

/** Replaces the signing secret; the new one is in the answer and nowhere else, ever. */
export async function rotateSecret(context: NotifierContext, id: number, given: string | undefined): Promise<WebhookWithSecret> {
  await getEndpoint(context, id);
  const secret = given ?? generateWebhookSecret();
  await context.db.getRepository(WebhookEndpointEntity).update({ id }, { secret_encrypted: sealSecret(secret, context.keySecret), updated_at: nowSeconds() });
  return { ...toEndpointView(await getEndpoint(context, id)), secret };
}

/** Deletes the endpoint; its pending deliveries are failed by their jobs when they find it gone. */
export async function deleteEndpoint(context: NotifierContext, id: number): Promise<void> {
  await getEndpoint(context, id);
  await context.db.getRepository(WebhookEndpointEntity).delete({ id });
}
