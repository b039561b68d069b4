import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel, type UserEvent } from '@testing-library/user-event';
import { RegisterPage } from '../src/features/auth/RegisterPage';
import { renderPage, setupFakeApi } from './render';

/**
 * A button by its text. Role queries compute every element's accessible name and visibility
 * (getComputedStyle on each, seconds per query in jsdom with antd's styles), so the
 * interaction-heavy tests find buttons by their label instead.
 */
const button = (name: string | RegExp) => screen.getByText(name, { selector: 'button span' }).closest('button')!;

const fake = setupFakeApi();
let user: UserEvent;
beforeEach(() => {
  // antd's many style rules make jsdom's per-click pointer-events check the slowest part of a test.
  user = userEvent.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });
});
afterEach(() => {
  jest.useRealTimers();
});

const submit = () => user.click(button(/注\s*册/));

/** Fills a field in one change event, which keeps the tests quick. */
function enter(placeholder: string, text: string) {
  fireEvent.change(screen.getByPlaceholderText(placeholder), { target: { value: text } });
}

function fill(username: string, password: string, password2: string) {
  enter('请输入用户名', username);
  enter('输入密码，最短 8 位，最长 20 位', password);
  enter('再次输入密码', password2);
}

describe('register page: validation', () => {
  it('requires username and password before calling the server', async () => {
    renderPage(<RegisterPage />, { route: '/register' });
    await submit();
    expect(await screen.findAllByText('请输入用户名和密码！')).toHaveLength(2);
    expect(fake.calls).toHaveLength(0);
  });

  it('refuses a password under 8 characters', async () => {
    renderPage(<RegisterPage />, { route: '/register' });
    fill('bob', 'short12', 'short12');
    await submit();
    expect(await screen.findByText('密码长度不得小于 8 位！')).toBeInTheDocument();
    expect(fake.calls).toHaveLength(0);
  });

  it('refuses two different passwords', async () => {
    renderPage(<RegisterPage />, { route: '/register' });
    fill('bob', 'password1', 'password2');
    await submit();
    expect(await screen.findByText('两次输入的密码不一致')).toBeInTheDocument();
    expect(fake.calls).toHaveLength(0);
  });

  it('caps the username at 12 characters', async () => {
    renderPage(<RegisterPage />, { route: '/register' });
    await user.type(screen.getByPlaceholderText('请输入用户名'), 'abcdefghijklmnop');
    expect(screen.getByPlaceholderText('请输入用户名')).toHaveValue('abcdefghijkl');
  });
});

describe('register page: sending', () => {
  it('registers with the invite code from the link, remembers it, and goes to /login', async () => {
    fake.ok('POST', '/api/user/register');
    const { router } = renderPage(<RegisterPage />, { route: '/register?aff=INV1' });
    await waitFor(() => expect(localStorage.getItem('aff')).toBe('INV1'));
    fill(' carol ', 'password12', 'password12');
    await submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    const call = fake.callsTo('POST', '/api/user/register')[0]!;
    expect(call.body).toEqual({ username: 'carol', password: 'password12', password2: 'password12', aff_code: 'INV1' });
    expect(call.query.has('turnstile')).toBe(false);
    expect(await screen.findByText('注册成功！')).toBeInTheDocument();
  });

  it('sends a remembered invite code when the link has none; only the minimum length is checked', async () => {
    localStorage.setItem('aff', 'KEPT');
    fake.ok('POST', '/api/user/register');
    const { router } = renderPage(<RegisterPage />, { route: '/register' });
    const long = 'a-password-of-24-chars!!';
    fill('dave', long, long);
    await submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(fake.callsTo('POST', '/api/user/register')[0]!.body).toEqual({ username: 'dave', password: long, password2: long, aff_code: 'KEPT' });
  });

  it('shows the server message and stays when registration fails', async () => {
    fake.fail('POST', '/api/user/register', 'the username is already taken');
    const { router } = renderPage(<RegisterPage />, { route: '/register' });
    fill('erin', 'password12', 'password12');
    await submit();
    expect(await screen.findByText('the username is already taken')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/register');
  });

  it('links back to /login', async () => {
    const { router } = renderPage(<RegisterPage />, { route: '/register' });
    await user.click(screen.getByRole('link', { name: '点击登录' }));
    expect(router.state.location.pathname).toBe('/login');
  });
});

describe('register page: email verification', () => {
  const status = { email_verification: true };

  it('requires an email before asking for a code, and a code before registering', async () => {
    renderPage(<RegisterPage />, { route: '/register', status });
    await user.click(button('获取验证码'));
    expect(await screen.findByText('请输入邮箱地址！')).toBeInTheDocument();
    enter('输入邮箱地址', 'not-an-email');
    await user.click(button('获取验证码'));
    expect(await screen.findByText('邮箱地址格式不正确')).toBeInTheDocument();
    fill('frank', 'password12', 'password12');
    await submit();
    expect(await screen.findByText('请输入邮箱验证码！')).toBeInTheDocument();
    expect(fake.calls).toHaveLength(0);
  });

  it('sends the code, locks the button for 30 seconds with a countdown, and registers with email and code', async () => {
    jest.useFakeTimers();
    user = userEvent.setup({ advanceTimers: jest.advanceTimersByTime, pointerEventsCheck: PointerEventsCheckLevel.Never });
    fake.ok('POST', '/api/verification').ok('POST', '/api/user/register');
    const { router } = renderPage(<RegisterPage />, { route: '/register', status });
    enter('输入邮箱地址', 'frank@example.com');
    await user.click(button('获取验证码'));
    expect(await screen.findByText('验证码发送成功，请检查你的邮箱！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/verification')[0]!.body).toEqual({ email: 'frank@example.com' });

    await screen.findByText('重新发送 (30)');
    const locked = button('重新发送 (30)');
    expect(locked).toBeDisabled();
    act(() => jest.advanceTimersByTime(10_000));
    expect(button('重新发送 (20)')).toBeDisabled();
    act(() => jest.advanceTimersByTime(20_000));
    expect(button('获取验证码')).toBeEnabled();

    enter('请输入用户名', 'frank');
    enter('输入密码，最短 8 位，最长 20 位', 'password12');
    enter('再次输入密码', 'password12');
    enter('输入验证码', 'c0de42');
    await user.click(button(/注\s*册/));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(fake.callsTo('POST', '/api/user/register')[0]!.body).toEqual({
      username: 'frank',
      password: 'password12',
      password2: 'password12',
      email: 'frank@example.com',
      verification_code: 'c0de42',
    });
  });

  it('does not lock the button when the server refuses the email', async () => {
    fake.fail('POST', '/api/verification', 'email: already used');
    renderPage(<RegisterPage />, { route: '/register', status });
    enter('输入邮箱地址', 'used@example.com');
    await user.click(button('获取验证码'));
    expect(await screen.findByText('email: already used')).toBeInTheDocument();
    expect(button('获取验证码')).toBeEnabled();
  });
});

describe('register page: human check', () => {
  const status = { turnstile_check: true, turnstile_site_key: 'site-key' };
  afterEach(() => {
    delete window.turnstile;
  });

  it('waits for the check, then sends its token with the code request and the registration', async () => {
    fake.ok('POST', '/api/verification').ok('POST', '/api/user/register');
    const { router } = renderPage(<RegisterPage />, { route: '/register', status: { ...status, email_verification: true } });
    fill('gina', 'password12', 'password12');
    enter('输入邮箱地址', 'gina@example.com');
    enter('输入验证码', 'abc123');
    await submit();
    expect(await screen.findByText('请稍后几秒重试，Turnstile 正在检查用户环境！')).toBeInTheDocument();
    expect(fake.calls).toHaveLength(0);

    // The widget's script loads and the check passes.
    window.turnstile = { render: (_element, options) => (options.callback('human-token'), 'widget-1'), remove: () => undefined };
    const script = document.head.querySelector<HTMLScriptElement>('script[src*="challenges.cloudflare.com/turnstile"]')!;
    act(() => void script.dispatchEvent(new Event('load')));

    await user.click(button('获取验证码'));
    await waitFor(() => expect(fake.callsTo('POST', '/api/verification')).toHaveLength(1));
    expect(fake.callsTo('POST', '/api/verification')[0]!.query.get('turnstile')).toBe('human-token');
    await submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(fake.callsTo('POST', '/api/user/register')[0]!.query.get('turnstile')).toBe('human-token');
  });
});

describe('register page: closed registration', () => {
  it('says new-user registration is closed and still offers third-party logins', () => {
    renderPage(<RegisterPage />, { route: '/register', status: { register_enabled: false, github_oauth: true, github_client_id: 'gh' } });
    expect(screen.getByText('管理员已关闭新用户注册')).toBeInTheDocument();
    expect(screen.queryByPlaceholderText('请输入用户名')).not.toBeInTheDocument();
    expect(button(/GitHub/)).toBeInTheDocument();
    expect(screen.getByText('第三方注册或登录')).toBeInTheDocument();
  });

  it('says password registration is closed', () => {
    renderPage(<RegisterPage />, { route: '/register', status: { password_register_enabled: false } });
    expect(screen.getByText('管理员已关闭密码注册，请使用第三方账户注册')).toBeInTheDocument();
    expect(screen.queryByPlaceholderText('输入密码，最短 8 位，最长 20 位')).not.toBeInTheDocument();
  });

  it('speaks English when chosen', () => {
    renderPage(<RegisterPage />, { route: '/register', locale: 'en-US' });
    expect(screen.getByPlaceholderText('Password, 8 to 20 characters')).toBeInTheDocument();
  });
});
