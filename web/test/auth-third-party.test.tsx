import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel, type UserEvent } from '@testing-library/user-event';
import { LoginPage } from '../src/features/auth/LoginPage';
import { ThirdPartyLogin } from '../src/features/auth/ThirdPartyLogin';
import { makeUser, renderPage, setupFakeApi } from './render';

/**
 * A button by its text. Role queries compute every element's accessible name and visibility
 * (getComputedStyle on each, seconds per query in jsdom with antd's styles), so the
 * interaction-heavy tests find buttons by their label instead.
 */
const button = (name: string | RegExp) => screen.getByText(name, { selector: 'button span' }).closest('button')!;
const queryButton = (name: string | RegExp) => screen.queryByText(name, { selector: 'button span' })?.closest('button') ?? null;

const fake = setupFakeApi();
let user: UserEvent;
let open: jest.SpyInstance;
beforeEach(() => {
  // The pointer-events check of every click reads computed styles: slow in jsdom, and antd's buttons are never inert.
  user = userEvent.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });
  open = jest.spyOn(window, 'open').mockReturnValue(null);
});
afterEach(() => {
  open.mockRestore();
});

const divider = <div>third-party-divider</div>;
/** The URL the last window.open call opened. */
const openedUrl = () => new URL(open.mock.calls.at(-1)![0] as string);

describe('third-party login buttons', () => {
  it('shows nothing, not even the divider, when every flag is off', () => {
    renderPage(<LoginPage />, { route: '/login' });
    expect(screen.queryByText('第三方登录')).not.toBeInTheDocument();
    expect(queryButton(/GitHub|LinuxDO|OIDC|微信/)).not.toBeInTheDocument();
  });

  it('shows each button by its flag, with the divider', () => {
    const { unmount } = renderPage(<ThirdPartyLogin divider={divider} />, { status: { github_oauth: true, github_client_id: 'gh' } });
    expect(screen.getByText('third-party-divider')).toBeInTheDocument();
    expect(button(/使用 GitHub 登录/)).toBeInTheDocument();
    expect(queryButton(/LinuxDO/)).not.toBeInTheDocument();
    expect(queryButton(/OIDC/)).not.toBeInTheDocument();
    expect(queryButton(/微信/)).not.toBeInTheDocument();
    unmount();

    renderPage(<ThirdPartyLogin divider={divider} />, { status: { linuxdo_oauth: true, oidc_enabled: true, wechat_login: true } });
    expect(button(/使用 LinuxDO 登录/)).toBeInTheDocument();
    expect(button(/使用 OIDC 登录/)).toBeInTheDocument();
    expect(button(/使用 微信 登录/)).toBeInTheDocument();
    expect(queryButton(/GitHub/)).not.toBeInTheDocument();
  });

  it('opens the code-hosting authorization page in a new window with a fresh state', async () => {
    fake.ok('GET', '/api/oauth/state', 'st4te');
    renderPage(<ThirdPartyLogin />, { status: { github_oauth: true, github_client_id: 'gh-client' } });
    await user.click(button(/GitHub/));
    await waitFor(() => expect(open).toHaveBeenCalledTimes(1));
    const url = openedUrl();
    expect(url.origin + url.pathname).toBe('https://github.com/login/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({ client_id: 'gh-client', state: 'st4te', scope: 'user:email' });
    expect(open.mock.calls[0]![1]).toBe('_blank');
    // No invite code known: no aff.
    expect(fake.callsTo('GET', '/api/oauth/state')[0]!.query.has('aff')).toBe(false);
  });

  it('passes the invite code from the link, else the remembered one, to the state call', async () => {
    fake.ok('GET', '/api/oauth/state', 's');
    const { unmount } = renderPage(<ThirdPartyLogin />, { route: '/register?aff=LINK', status: { github_oauth: true, github_client_id: 'gh' } });
    await user.click(button(/GitHub/));
    await waitFor(() => expect(fake.callsTo('GET', '/api/oauth/state')).toHaveLength(1));
    expect(fake.callsTo('GET', '/api/oauth/state')[0]!.query.get('aff')).toBe('LINK');
    unmount();

    localStorage.setItem('aff', 'STORED');
    renderPage(<ThirdPartyLogin />, { route: '/login', status: { github_oauth: true, github_client_id: 'gh' } });
    await user.click(button(/GitHub/));
    await waitFor(() => expect(fake.callsTo('GET', '/api/oauth/state')).toHaveLength(2));
    expect(fake.callsTo('GET', '/api/oauth/state')[1]!.query.get('aff')).toBe('STORED');
  });

  it('opens the second OAuth service and the OIDC provider with their parameters', async () => {
    fake.ok('GET', '/api/oauth/state', 'xyz');
    renderPage(<ThirdPartyLogin />, {
      status: {
        linuxdo_oauth: true,
        linuxdo_client_id: 'ld-client',
        oidc_enabled: true,
        oidc_client_id: 'oidc-client',
        oidc_authorization_endpoint: 'https://id.example.com/authorize',
        server_address: 'https://gw.example.com/',
      },
    });
    await user.click(button(/LinuxDO/));
    await waitFor(() => expect(open).toHaveBeenCalledTimes(1));
    let url = openedUrl();
    expect(url.origin + url.pathname).toBe('https://connect.linux.do/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({ response_type: 'code', client_id: 'ld-client', state: 'xyz' });

    await user.click(button(/OIDC/));
    await waitFor(() => expect(open).toHaveBeenCalledTimes(2));
    url = openedUrl();
    expect(url.origin + url.pathname).toBe('https://id.example.com/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'oidc-client',
      response_type: 'code',
      scope: 'openid profile email',
      state: 'xyz',
      redirect_uri: 'https://gw.example.com/oauth/oidc',
    });
  });

  it('opens nothing when the state call fails, and shows the server message', async () => {
    fake.fail('GET', '/api/oauth/state', 'too many requests from this address');
    renderPage(<ThirdPartyLogin />, { status: { github_oauth: true, github_client_id: 'gh' } });
    await user.click(button(/GitHub/));
    expect(await screen.findByText('too many requests from this address')).toBeInTheDocument();
    expect(open).not.toHaveBeenCalled();
  });
});

describe('WeChat login dialog', () => {
  const status = { wechat_login: true, wechat_qrcode: 'https://example.com/qr.png' };

  it('shows the QR code and says the code is valid 3 minutes; an empty code does nothing', async () => {
    renderPage(<ThirdPartyLogin />, { route: '/login', status });
    await user.click(button(/微信/));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByAltText('微信公众号二维码')).toHaveAttribute('src', 'https://example.com/qr.png');
    expect(within(dialog).getByText(/三分钟内有效/)).toBeInTheDocument();
    await user.click(within(dialog).getByText(/登\s*录/, { selector: 'button span' }));
    await user.type(within(dialog).getByPlaceholderText('验证码'), '   {Enter}');
    // A code then is the only call: had the empty ones been sent, their calls would have come first.
    fake.fail('POST', '/api/oauth/wechat', 'wrong code');
    await user.type(within(dialog).getByPlaceholderText('验证码'), '654321{Enter}');
    await waitFor(() => expect(fake.calls.map((call) => [call.method, call.path, call.body])).toEqual([['POST', '/api/oauth/wechat', { code: '654321' }]]));
  });

  it('logs in with the code: stores the user and goes to /token', async () => {
    const account = makeUser({ id: 5, username: 'wx_5' });
    fake.ok('POST', '/api/oauth/wechat', account);
    const { router, store } = renderPage(<ThirdPartyLogin />, { route: '/login', status });
    await user.click(button(/微信/));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByPlaceholderText('验证码'), ' 123456 ');
    await user.click(within(dialog).getByText(/登\s*录/, { selector: 'button span' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    expect(fake.callsTo('POST', '/api/oauth/wechat')[0]!.body).toEqual({ code: '123456' });
    expect(store.getState().session.user).toEqual(account);
    expect(JSON.parse(localStorage.getItem('user')!)).toEqual(account);
    expect(await screen.findByText('登录成功！')).toBeInTheDocument();
  });

  it("sends a root that must change the factory password to the login page's password change", async () => {
    const root = makeUser({ id: 1, username: 'root', role: 100 });
    fake.ok('POST', '/api/oauth/wechat', { ...root, default_password: true, require_password_change: true });
    const { router, store } = renderPage(<ThirdPartyLogin />, { route: '/somewhere', status });
    await user.click(button(/微信/));
    await user.type(within(await screen.findByRole('dialog')).getByPlaceholderText('验证码'), '123456{Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(router.state.location.state).toEqual({ passwordChange: true });
    expect(store.getState().session.user).toEqual(root);
  });

  it('shows the server message for a wrong code and stays', async () => {
    fake.fail('POST', '/api/oauth/wechat', 'the verification code is wrong or has expired');
    const { router, store } = renderPage(<ThirdPartyLogin />, { route: '/login', status });
    await user.click(button(/微信/));
    await user.type(within(await screen.findByRole('dialog')).getByPlaceholderText('验证码'), 'bad{Enter}');
    expect(await screen.findByText('the verification code is wrong or has expired')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(store.getState().session.user).toBeNull();
  });
});

describe('Telegram login widget', () => {
  const status = { telegram_oauth: true, telegram_bot_name: 'gateway_bot' };
  const widgetScript = () => document.querySelector<HTMLScriptElement>('script[src^="https://telegram.org/js/telegram-widget.js"]');

  it('is not injected without the flag or the bot name', () => {
    renderPage(<ThirdPartyLogin divider={divider} />, { status: { telegram_oauth: true, telegram_bot_name: '' } });
    expect(widgetScript()).toBeNull();
    expect(screen.queryByText('third-party-divider')).not.toBeInTheDocument();
  });

  it('injects the widget script and logs in with the fields it hands back', async () => {
    const account = makeUser({ id: 8, username: 'tg_8' });
    fake.ok('POST', '/api/oauth/telegram/login', { ...account, default_password: false, require_password_change: false });
    const { router, store, unmount } = renderPage(<ThirdPartyLogin divider={divider} />, { route: '/login', status });
    expect(screen.getByText('third-party-divider')).toBeInTheDocument();
    const script = widgetScript()!;
    expect(script.src).toBe('https://telegram.org/js/telegram-widget.js?22');
    expect(script.dataset.telegramLogin).toBe('gateway_bot');
    expect(script.dataset.size).toBe('large');
    const onauth = script.dataset.onauth!;
    const name = onauth.replace(/\(user\)$/, '');
    const callback = (window as unknown as Record<string, (user: unknown) => void>)[name]!;
    expect(typeof callback).toBe('function');

    act(() => callback({ id: 42, first_name: 'Ann', username: 'ann', photo_url: 'https://t.me/a.jpg', auth_date: 1700000000, hash: 'a'.repeat(64) }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/token'));
    expect(fake.callsTo('POST', '/api/oauth/telegram/login')[0]!.body).toEqual({
      id: '42',
      first_name: 'Ann',
      username: 'ann',
      photo_url: 'https://t.me/a.jpg',
      auth_date: '1700000000',
      hash: 'a'.repeat(64),
    });
    // The stored record is the user, without the login answer's flags.
    expect(store.getState().session.user).toEqual(account);

    unmount();
    expect((window as unknown as Record<string, unknown>)[name]).toBeUndefined();
  });
});
