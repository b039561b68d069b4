import { importPKCS8, SignJWT } from 'jose';
import type { ProviderContext, TokenExchange } from '../types.js';
import { GOOGLE_TOKEN_URI, serviceAccount } from './api.js';

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Google's largest assertion lifetime: the token it gives lasts an hour either way. */
const ASSERTION_SECONDS = 3600;

/**
 * The service account's OAuth2 token exchange (RFC 7523, Google's "JWT bearer" grant): a JWT
 * signed RS256 with the account's private key, `iss` the account, `aud` the token endpoint,
 * `scope` cloud-platform, posted as `assertion`. The relay caches the access token per channel
 * (access-tokens.ts), so this runs about once an hour.
 */
export function vertexTokenExchange(context: Pick<ProviderContext, 'channel' | 'key'>): TokenExchange {
  const account = serviceAccount(context.channel, context.key);
  const tokenUri = account.token_uri ?? GOOGLE_TOKEN_URI;
  return {
    scope: '',
    async request() {
      const now = Math.floor(Date.now() / 1000);
      const assertion = await new SignJWT({ scope: SCOPE })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(account.private_key_id ? { kid: account.private_key_id } : {}) })
        .setIssuer(account.client_email)
        .setAudience(tokenUri)
        .setIssuedAt(now)
        .setExpirationTime(now + ASSERTION_SECONDS)
        .sign(await importPKCS8(account.private_key, 'RS256'));
      const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
      return { method: 'POST', url: tokenUri, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() };
    },
    parse(json, now) {
      const answer = json as { access_token?: unknown; expires_in?: unknown };
      if (typeof answer.access_token !== 'string' || answer.access_token === '') throw new Error('the token endpoint answered without an access_token');
      const seconds = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 3600;
      return { token: answer.access_token, expiresAt: now + seconds * 1000 };
    },
  };
}
