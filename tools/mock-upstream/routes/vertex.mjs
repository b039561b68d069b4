// Google Vertex AI (README.md "Vertex AI"): the OAuth2 token endpoint of a service account and the
// publisher model endpoints. The token endpoint checks the JWT bearer assertion the way Google's
// does: RS256 signature with the service account's public key, `iss` the account, `aud` the token
// endpoint, the cloud-platform scope, `iat`/`exp` current and at most an hour apart; it then issues
// an access token (an hour). Every model call needs a token it issued.
import crypto from 'node:crypto';
import { anthropicMessages, chunkText, gemini, openAiChat, promptTokensOf, textCharsOf } from '../server.mjs';

/** The service account's key pair, made once per process; tests get its JSON key from `vertexServiceAccount`. */
const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const CLIENT_EMAIL = 'relay-test@mock-project.iam.gserviceaccount.com';
const PROJECT = 'mock-project';

/** The service-account JSON key of the mock's account, its token endpoint at `baseUrl`. */
export function vertexServiceAccount(baseUrl) {
  return {
    type: 'service_account',
    project_id: PROJECT,
    private_key_id: 'mock-key-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    client_email: CLIENT_EMAIL,
    client_id: '100000000000000000001',
    token_uri: `${baseUrl}/token`,
  };
}

const MODEL =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(generateContent|streamGenerateContent|rawPredict|streamRawPredict)$/;
const MAAS = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/endpoints\/openapi\/chat\/completions$/;

const base64url = (text) => Buffer.from(text, 'base64url');

/** Why Google would refuse the assertion, or null. */
function assertionProblem(assertion, audience) {
  const parts = String(assertion ?? '').split('.');
  if (parts.length !== 3) return 'invalid_grant: the assertion is not a JWT';
  let header;
  let claims;
  try {
    header = JSON.parse(base64url(parts[0]).toString());
    claims = JSON.parse(base64url(parts[1]).toString());
  } catch {
    return 'invalid_grant: the assertion is not a JWT';
  }
  if (header.alg !== 'RS256') return 'invalid_grant: the assertion must be signed RS256';
  const signed = crypto.verify('RSA-SHA256', Buffer.from(`${parts[0]}.${parts[1]}`), publicKey, base64url(parts[2]));
  if (!signed) return 'invalid_grant: Invalid JWT Signature.';
  if (claims.iss !== CLIENT_EMAIL) return 'invalid_grant: the issuer is not a known service account';
  if (claims.aud !== audience) return 'invalid_grant: Invalid JWT: the audience is not this token endpoint';
  if (
    !String(claims.scope ?? '')
      .split(' ')
      .includes('https://www.googleapis.com/auth/cloud-platform')
  )
    return 'invalid_scope: the cloud-platform scope is missing';
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number' || claims.iat > now + 60 || claims.exp < now || claims.exp - claims.iat > 3600)
    return 'invalid_grant: Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.';
  return null;
}

function store(state) {
  state.vertex ??= { tokens: new Set() };
  return state.vertex;
}

const googleError = (status, message, statusName) => JSON.stringify({ error: { code: status, message, status: statusName } });

export const vertexRoutes = {
  flavor: 'vertex',

  match(method, path) {
    if (method !== 'POST') return undefined;
    if (path === '/token') return 'vertex.token';
    const model = MODEL.exec(path);
    if (model) return `vertex.${model[5]}`;
    if (MAAS.test(path)) return 'vertex.maas';
    return undefined;
  },

  modelOf(path) {
    const model = MODEL.exec(path);
    return model ? decodeURIComponent(model[4]) : undefined;
  },

  errorBody: (status, message) => googleError(status, message, status === 429 ? 'RESOURCE_EXHAUSTED' : status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'),

  respond(req, res, { kind, path, baseModel, body, options, state, send }) {
    const vertex = store(state);
    const base = `http://${req.headers.host}`;
    if (kind === 'vertex.token') {
      if (body?.grant_type !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return send.json(400, JSON.stringify({ error: 'unsupported_grant_type' }));
      const problem = assertionProblem(body.assertion, `${base}/token`);
      if (problem) {
        const [error, description] = problem.split(': ');
        return send.json(400, JSON.stringify({ error, error_description: description }));
      }
      const token = `ya29.mock-${crypto.randomBytes(12).toString('hex')}`;
      vertex.tokens.add(token);
      return send.json(200, JSON.stringify({ access_token: token, expires_in: 3599, token_type: 'Bearer' }));
    }

    const bearer = String(req.headers.authorization ?? '');
    if (!bearer.startsWith('Bearer ') || !vertex.tokens.has(bearer.slice(7))) {
      return send.json(401, googleError(401, 'Request had invalid authentication credentials. Expected OAuth 2 access token.', 'UNAUTHENTICATED'));
    }
    const location = (MODEL.exec(path) ?? MAAS.exec(path)).slice(1, 3);
    if (location[0] !== PROJECT) return send.json(403, googleError(403, `Permission denied on resource project ${location[0]}.`, 'PERMISSION_DENIED'));
    const contents = Array.from({ length: options.chunks }, (_, index) => chunkText(index, options.words));
    const prompt = promptTokensOf(textCharsOf(body));

    if (kind === 'vertex.rawPredict' || kind === 'vertex.streamRawPredict') {
      if (body.anthropic_version !== 'vertex-2023-10-16')
        return send.json(400, googleError(400, 'anthropic_version: vertex-2023-10-16 is required', 'INVALID_ARGUMENT'));
      if ('model' in body) return send.json(400, googleError(400, 'model: Extra inputs are not permitted', 'INVALID_ARGUMENT'));
      const proto = anthropicMessages(baseModel, options, contents, prompt);
      return kind === 'vertex.rawPredict' ? send.json(200, proto.body()) : send.stream(proto, contents);
    }
    if (kind === 'vertex.maas') {
      const proto = openAiChat(body.model, options, contents, prompt, body.stream_options?.include_usage === true);
      return body.stream === true ? send.stream(proto, contents) : send.json(200, proto.body());
    }
    const proto = gemini(baseModel, options, contents, prompt, true);
    if (kind === 'vertex.generateContent') return send.json(200, proto.body());
    return send.stream(proto, contents);
  },
};
