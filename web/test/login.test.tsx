import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role } from '@aigw/contracts';
import { LoginPage } from '../src/features/auth/LoginPage';
import { FakeApi } from './fake-api';
import { makeUser, renderPage } from './render';

let fake: FakeApi;
beforeEach(() => {
  fake = new FakeApi().install();
  localStorage.clear();
});
afterEach(() => fake.restore());

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
