// The ChatGPT backend a Codex channel speaks (README.md "Codex"): OpenAI's token endpoint for the
// refresh (`POST /oauth/token`, form-encoded, the Codex CLI's client id, single-use refresh tokens
// rotated on each refresh, as OpenAI's are) and the Responses endpoint `POST
// /backend-api/codex/responses`, which wants an access token it can verify, the account header,
// a stream and nothing stored, then answers as the Responses route does. Access tokens are JWTs
// signed with a secret of this process, so a test can make a stored one (`codexAccessToken`).
import crypto from 'node:crypto';
import { responsesRoutes } from './responses.mjs';

/** The Codex CLI's public OAuth client id, which a refresh must name. */
export const CODEX_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';
/** The ChatGPT accounts the mock knows: refresh token -> account id. Process-wide: a test may add its own. */
export const codexAccounts = new Map([['mock-codex-refresh', 'mock-account']]);
/** What a refresh answers as `expires_in` (seconds). */
export const CODEX_TOKEN_LIFETIME_S = 864_000;

const SECRET = crypto.randomBytes(32);
const CLAIMS = 'https://api.openai.com/auth';
const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const sign = (text) => crypto.createHmac('sha256', SECRET).update(text).digest('base64url');

/** An access token of the account, expiring at `expiresAt` (epoch seconds), as the mock issues them. */
export function codexAccessToken(accountId, expiresAt) {
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ exp: expiresAt, iat: Math.floor(Date.now() / 1000), [CLAIMS]: { chatgpt_account_id: accountId } })}`;
  return `${unsigned}.${sign(unsigned)}`;
}

/** The account of a bearer token this process signed and that has not expired, or why not. */
function tokenAccount(authorization) {
  const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  const parts = token?.split('.') ?? [];
  if (parts.length !== 3 || sign(`${parts[0]}.${parts[1]}`) !== parts[2])
    return { problem: 'Could not parse your authentication token. Please try signing in again.' };
  const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
  if (!(claims.exp > Date.now() / 1000)) return { problem: 'Your authentication token has expired. Please try signing in again.' };
  return { account: claims[CLAIMS]?.chatgpt_account_id };
}

const oauthError = (send, code, message) => send.json(401, JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } }));

/** The refresh: a known, unused refresh token of the Codex client; the answer rotates it. */
function refresh(body, state, send) {
  if (body.grant_type !== 'refresh_token')
    return send.json(400, JSON.stringify({ error: 'unsupported_grant_type', error_description: 'grant_type must be refresh_token' }));
  if (body.client_id !== CODEX_CLIENT_ID) return send.json(401, JSON.stringify({ error: 'invalid_client', error_description: 'Unknown client' }));
  const used = (state.codexUsed ??= new Set());
  const issued = (state.codexIssued ??= new Map());
  const presented = String(body.refresh_token ?? '');
  if (used.has(presented)) return oauthError(send, 'refresh_token_reused', 'Your refresh token has already been used to generate a new access token.');
  const account = issued.get(presented) ?? codexAccounts.get(presented);
  if (!account) return oauthError(send, 'refresh_token_invalidated', 'Your refresh token has been invalidated.');
  used.add(presented);
  const next = `${presented.split('~')[0]}~${crypto.randomBytes(6).toString('hex')}`;
  issued.set(next, account);
  const expiresAt = Math.floor(Date.now() / 1000) + CODEX_TOKEN_LIFETIME_S;
  send.json(
    200,
    JSON.stringify({
      access_token: codexAccessToken(account, expiresAt),
      refresh_token: next,
      id_token: `${b64({ alg: 'none' })}.${b64({ [CLAIMS]: { chatgpt_account_id: account } })}.`,
      token_type: 'Bearer',
      expires_in: CODEX_TOKEN_LIFETIME_S,
    }),
  );
}

/** Why the backend would refuse the call (status, detail), or null. */
function callProblem(req, body) {
  const { account, problem } = tokenAccount(req.headers.authorization);
  if (problem) return [401, problem];
  if (req.headers['chatgpt-account-id'] !== account) return [403, 'The chatgpt-account-id header does not match your account.'];
  if (body.stream !== true) return [400, 'Stream must be set to true'];
  if (body.store !== false) return [400, 'Store must be set to false'];
  if (typeof body.instructions !== 'string') return [400, 'Instructions are required'];
  for (const name of ['max_output_tokens', 'temperature']) if (body[name] !== undefined) return [400, `Unsupported parameter: ${name}`];
  return null;
}

export const codexRoutes = {
  flavor: 'codex',

  match(method, path) {
    if (method !== 'POST') return undefined;
    if (path === '/oauth/token') return 'codex.token';
    return path === '/backend-api/codex/responses' ? 'codex.responses' : undefined;
  },

  /** The backend's `{detail}`; a plan's limit as `{error: {type: "usage_limit_reached"}}`, as ChatGPT answers it. */
  errorBody: (status, message) => JSON.stringify(status === 429 ? { error: { type: 'usage_limit_reached', message, plan_type: 'plus' } } : { detail: message }),

  respond(req, res, context) {
    const { kind, body, state, send } = context;
    if (kind === 'codex.token') return refresh(body, state, send);
    const problem = callProblem(req, body);
    if (problem) return send.json(problem[0], JSON.stringify({ detail: problem[1] }));
    responsesRoutes.respond(req, res, { ...context, kind: 'responses.create' });
  },
};
