/**
 * Authorization pages of the code-hosting service and the second OAuth service, as the
 * established product opens them; the provider sends the browser back to /oauth/{provider},
 * whose callback binds the account because the session is signed in.
 */
export function githubAuthorizeUrl(clientId: string, state: string): string {
  const query = new URLSearchParams({ client_id: clientId, state, scope: 'user:email' });
  return `https://github.com/login/oauth/authorize?${query.toString()}`;
}

export function linuxdoAuthorizeUrl(clientId: string, state: string): string {
  const query = new URLSearchParams({ response_type: 'code', client_id: clientId, state });
  return `https://connect.linux.do/oauth2/authorize?${query.toString()}`;
}
