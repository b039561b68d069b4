import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role } from '@aigw/contracts';
import { LoginPage } from '../src/features/auth/LoginPage';
import { makeUser, renderPage, setupFakeApi } from './render';

const fake = setupFakeApi();

describe('login page', () => {
  it('asks for username and password before calling the server', async () => {
    renderPage(<LoginPage />, { route: '/login' });
    await userEvent.click(screen.getByRole('button', { name: /登\s*录/ }));
    expect(await screen.findAllByText('请输入用户名和密码！')).toHaveLength(2);
    expect(fake.calls).toHaveLength(0);
  });

  it('says the session expired when sent back with expired=true', async () => {
    renderPage(<LoginPage />, { route: '/login?expired=true' });
    expect(await screen.findByText('未登录或登录已过期，请重新登录！')).toBeInTheDocument();
  });

  it('signs in, stores the user and goes to /token', async () => {
    const user = makeUser({ id: 7, username: 'bob' });
    fake.ok('POST', '/api/user/login', { ...user, default_password: false });
    const { router, store } = renderPage(<LoginPage />, { route: '/login' });
    await userEvent.type(screen.getByPlaceholderText('用户名或邮箱'), ' bob ');
    await userEvent.type(screen.getByPlaceholderText('密码'), 'password1');
    await userEvent.click(screen.getByRole('button', { name: /登\s*录/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    expect(fake.callsTo('POST', '/api/user/login')[0]!.body).toEqual({ username: 'bob', password: 'password1' });
    expect(store.getState().session.user).toEqual(user);
    expect(JSON.parse(localStorage.getItem('user')!)).toEqual(user);
    expect(screen.queryByText('您正在使用默认密码！请立刻修改默认密码！')).not.toBeInTheDocument();
  });

  it('warns about the factory default password', async () => {
    fake.ok('POST', '/api/user/login', { ...makeUser({ id: 1, username: 'root', role: Role.Root }), default_password: true });
    renderPage(<LoginPage />, { route: '/login' });
    await userEvent.type(screen.getByPlaceholderText('用户名或邮箱'), 'root');
    await userEvent.type(screen.getByPlaceholderText('密码'), '123456');
    await userEvent.click(screen.getByRole('button', { name: /登\s*录/ }));
    expect(await screen.findByText('您正在使用默认密码！请立刻修改默认密码！')).toBeInTheDocument();
  });

  it('opens the password change at once when the server requires it, and goes on only after it', async () => {
    const root = makeUser({ id: 1, username: 'root', role: Role.Root });
    fake.ok('POST', '/api/user/login', { ...root, default_password: true, require_password_change: true });
    fake.ok('PUT', '/api/user/self', null);
    const { router, store } = renderPage(<LoginPage />, { route: '/login' });
    await userEvent.type(screen.getByPlaceholderText('用户名或邮箱'), 'root');
    await userEvent.type(screen.getByPlaceholderText('密码'), '123456');
    await userEvent.click(screen.getByRole('button', { name: /登\s*录/ }));

    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('修改密码')).toBeInTheDocument();
    expect(within(dialog).getByText(/仍在使用出厂默认密码/)).toBeInTheDocument();
    // It cannot be dismissed: no cancel, no close button; the user is stored, the page stays.
    expect(within(dialog).queryByRole('button', { name: /取\s*消/ })).toBeNull();
    expect(within(dialog).queryByRole('button', { name: 'Close' })).not.toBeInTheDocument();
    expect(store.getState().session.user).toEqual(root);
    expect(router.state.location.pathname).toBe('/login');

    await userEvent.type(within(dialog).getByLabelText('原密码'), '123456');
    await userEvent.type(within(dialog).getByLabelText('新密码'), 'a-new-root-pass');
    await userEvent.type(within(dialog).getByLabelText('确认新密码'), 'a-new-root-pass');
    await userEvent.click(within(dialog).getByRole('button', { name: /确认修改/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    expect(fake.callsTo('PUT', '/api/user/self')[0]!.body).toEqual({ original_password: '123456', password: 'a-new-root-pass' });
    expect(fake.unexpected).toEqual([]);
  });

  it('opens the password change when a third-party sign-in sends it back here', async () => {
    const { router } = renderPage(<LoginPage />, { routes: [{ path: '/login', element: <LoginPage /> }], route: '/login' });
    await act(() => router.navigate('/login', { state: { passwordChange: true } }));
    expect(await screen.findByText(/仍在使用出厂默认密码/)).toBeInTheDocument();
  });

  it('shows the server message when the credentials are wrong', async () => {
    fake.fail('POST', '/api/user/login', 'username or password is wrong, or the user has been banned');
    const { router, store } = renderPage(<LoginPage />, { route: '/login' });
    await userEvent.type(screen.getByPlaceholderText('用户名或邮箱'), 'bob');
    await userEvent.type(screen.getByPlaceholderText('密码'), 'nope-nope');
    await userEvent.click(screen.getByRole('button', { name: /登\s*录/ }));
    expect(await screen.findByText('username or password is wrong, or the user has been banned')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(store.getState().session.user).toBeNull();
  });

  it('hides the password form when password login is off', () => {
    renderPage(<LoginPage />, { route: '/login', status: { password_login_enabled: false } });
    expect(screen.queryByPlaceholderText('密码')).not.toBeInTheDocument();
  });

  it('speaks English when chosen', () => {
    renderPage(<LoginPage />, { route: '/login', locale: 'en-US' });
    expect(screen.getByPlaceholderText('Username or email')).toBeInTheDocument();
  });
});
