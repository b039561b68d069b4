import type { ReactElement } from 'react';
import { act, configure, screen, waitFor } from '@testing-library/react';
import type { User } from '@aigw/contracts';
import { OAuthCallbackPage, FAILURE_REDIRECT_MS } from '../src/features/auth/OAuthCallbackPage';
import { makeUser, renderPage, setupFakeApi } from './render';

const fake = setupFakeApi();
afterEach(() => {
  jest.useRealTimers();
});

/** The callback page at its route, and a page for wherever it sends the browser. */
const open = (route: string, { page = <OAuthCallbackPage />, user = null }: { page?: ReactElement; user?: User | null } = {}) =>
  renderPage(page, {
    route,
    user,
    routes: [
      { path: '/oauth/:provider', element: page },
      { path: '*', element: <div>elsewhere</div> },
    ],
  });

describe('OAuth callback page', () => {
  it('logs in: sends code and state, stores the user and goes to /token', async () => {
    const user = makeUser({ id: 12, username: 'github_12', github_id: 'octo' });
    fake.ok('GET', '/api/oauth/github', { ...user, default_password: false });
    const { router, store } = open('/oauth/github?code=c0de&state=st4te');
    expect(screen.getByText('处理中...')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    const call = fake.callsTo('GET', '/api/oauth/github')[0]!;
    expect(Object.fromEntries(call.query)).toEqual({ code: 'c0de', state: 'st4te' });
    expect(store.getState().session.user).toEqual(user);
    expect(JSON.parse(localStorage.getItem('user')!)).toEqual(user);
    expect(await screen.findByText('登录成功！')).toBeInTheDocument();
  });

  it('binds: the answer message "bind" says bound and goes to /setting, keeping the session', async () => {
    const signedIn = makeUser({ id: 3, username: 'alice' });
    fake.ok('GET', '/api/oauth/linuxdo', null, 'bind');
    const { router, store } = open('/oauth/linuxdo?code=c&state=s', { user: signedIn });
    await waitFor(() => expect(router.state.location.pathname).toBe('/setting'));
    expect(await screen.findByText('绑定成功！')).toBeInTheDocument();
    expect(store.getState().session.user).toEqual(signedIn);
    expect(fake.callsTo('GET', '/api/oauth/linuxdo')).toHaveLength(1);
  });

  it('on failure shows the server message, says it is redirecting, then goes to /setting', async () => {
    jest.useFakeTimers();
    fake.fail('GET', '/api/oauth/oidc', 'the state is invalid or has expired');
    const { router, store } = open('/oauth/oidc?code=c&state=old');
    expect(await screen.findByText('操作失败，重定向至登录界面中...')).toBeInTheDocument();
    expect(screen.getByText('the state is invalid or has expired')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/oauth/oidc');
    act(() => jest.advanceTimersByTime(FAILURE_REDIRECT_MS));
    await waitFor(() => expect(router.state.location.pathname).toBe('/setting'));
    expect(store.getState().session.user).toBeNull();
  });

  it('sends the single-use code once under StrictMode', async () => {
    fake.ok('GET', '/api/oauth/github', makeUser({ id: 4 }));
    // StrictMode at the root: React 19 runs mount effects twice only there, not in a nested StrictMode.
    configure({ reactStrictMode: true });
    try {
      const { router } = open('/oauth/github?code=once&state=s');
      await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    } finally {
      configure({ reactStrictMode: false });
    }
    expect(fake.callsTo('GET', '/api/oauth/github')).toHaveLength(1);
  });

  it('without a code (the user declined) shows the provider reason and redirects without calling, StrictMode too', async () => {
    jest.useFakeTimers();
    configure({ reactStrictMode: true });
    try {
      const { router } = open('/oauth/github?error=access_denied&error_description=The+user+has+denied+your+application+access.&state=s');
      expect(await screen.findByText('The user has denied your application access.')).toBeInTheDocument();
      expect(screen.getByText('操作失败，重定向至登录界面中...')).toBeInTheDocument();
      act(() => jest.advanceTimersByTime(FAILURE_REDIRECT_MS));
      await waitFor(() => expect(router.state.location.pathname).toBe('/setting'));
    } finally {
      configure({ reactStrictMode: false });
    }
    expect(fake.calls).toHaveLength(0);
  });

  it('speaks English when chosen', async () => {
    fake.fail('GET', '/api/oauth/github', 'nope');
    renderPage(<OAuthCallbackPage />, { route: '/oauth/github?code=c&state=s', path: '/oauth/:provider', locale: 'en-US' });
    expect(await screen.findByText('Operation failed, redirecting to the login page...')).toBeInTheDocument();
  });
});
