import type { Status } from '@aigw/contracts';

/** The third-party services whose authorization page opens in a new window. */
export type OAuthProvider = 'github' | 'linuxdo' | 'oidc';

/**
 * Authorization pages of the third-party logins, as the established product opens them. The
 * provider sends the browser back to /oauth/{provider}?code=&state= (OAuthCallbackPage), which
 * signs in, or binds the account when the session is already signed in.
 */
export function githubAuthorizeUrl(clientId: string, state: string): string {
  const query = new URLSearchParams({ client_id: clientId, state, scope: 'user:email' });
  return `https://github.com/login/oauth/authorize?${query.toString()}`;
}

export function linuxdoAuthorizeUrl(clientId: string, state: string): string {
  const query = new URLSearchParams({ response_type: 'code', client_id: clientId, state });
  return `https://connect.linux.do/oauth2/authorize?${query.toString()}`;
}

/** The OIDC provider's authorization endpoint, which may already carry a query of its own. */
export function oidcAuthorizeUrl(endpoint: string, clientId: string, state: string, serverAddress: string): string {
  const query = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    scope: 'openid profile email',
    state,
    redirect_uri: `${serverAddress.replace(/\/+$/, '')}/oauth/oidc`,
  });
  return `${endpoint}${endpoint.includes('?') ? '&' : '?'}${query.toString()}`;
}

/** The authorization page of `provider` with the client ids the server's status names. */
export function authorizeUrl(provider: OAuthProvider, status: Status, state: string): string {
  switch (provider) {
    case 'github':
      return githubAuthorizeUrl(status.github_client_id, state);
    case 'linuxdo':
      return linuxdoAuthorizeUrl(status.linuxdo_client_id, state);
    case 'oidc':
      return oidcAuthorizeUrl(status.oidc_authorization_endpoint, status.oidc_client_id, state, status.server_address || window.location.origin);
  }
}
