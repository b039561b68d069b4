import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { BillingContext } from '../context.js';
import { NOTIFY_FAIL, type EpayParams } from '../domain/epay.js';
import { handleNotify } from '../topups.js';

/** A notify is a dozen short fields; anything much larger is not one (rule R10: a size cap). */
const NOTIFY_LIMIT_BYTES = 8 * 1024;
const NOTIFY_FIELDS_MAX = 32;

/**
 * The epay gateway's notify callback, `GET` and `POST /api/user/epay/notify` (both, as gateways
 * differ; complaint 12, docs/compatibility.md section 7). Public: the caller is the gateway,
 * authenticated by the signature only. Answers the plain text `success` or `fail` that epay
 * gateways expect, never the envelope.
 */
export const epayRoutes: FastifyPluginAsync<{ context: BillingContext }> = async (app, { context }) => {
  // Gateways post forms. Scoped to this plugin: no other billing route takes form bodies.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: NOTIFY_LIMIT_BYTES }, (_request, body, done) => {
    done(null, body);
  });

  const notify = async (request: FastifyRequest) => {
    const params = notifyParams(request);
    return params ? handleNotify(context, params) : NOTIFY_FAIL;
  };
  const options = { bodyLimit: NOTIFY_LIMIT_BYTES, config: { access: 'public' as const } };
  app.get('/api/user/epay/notify', options, async (request, reply) => reply.type('text/plain; charset=utf-8').send(await notify(request)));
  app.post('/api/user/epay/notify', options, async (request, reply) => reply.type('text/plain; charset=utf-8').send(await notify(request)));
};

/**
 * The notify's fields, from the query string (GET, or a POST that sent none in its body) or the
 * form body (or a JSON object of strings); null when they are not a bounded set of single string values.
 */
function notifyParams(request: FastifyRequest): EpayParams | null {
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
  if (query.length > NOTIFY_LIMIT_BYTES) return null;
  const body = request.body;
  let entries: Array<[string, unknown]>;
  if (typeof body === 'string' && body.length > 0) entries = [...new URLSearchParams(body)];
  else if (body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length > 0) entries = Object.entries(body);
  else entries = [...new URLSearchParams(query)];
  if (entries.length > NOTIFY_FIELDS_MAX) return null;
  const params = Object.create(null) as EpayParams;
  for (const [name, value] of entries) {
    // A repeated field (which one was signed?) or a value that is not text.
    if (Object.hasOwn(params, name) || typeof value !== 'string') return null;
    params[name] = value;
  }
  return params;
}
