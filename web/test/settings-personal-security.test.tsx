import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { EditProfilePage } from '../src/features/settings/personal/EditProfilePage';
import { PersonalTab } from '../src/features/settings/personal/PersonalTab';
import { makeUser, renderPage, type RenderOptions, setupFakeApi, stubClipboard } from './render';

const alice = makeUser({ id: 2, username: 'alice', email: '', wechat_id: '', github_id: 'alice-gh' });

const fake = setupFakeApi();
let writeText: jest.Mock;

beforeEach(() => {
  writeText = stubClipboard();
  fake.ok('GET', '/api/user/self', alice);
  fake.ok('GET', '/api/user/aff', 'Xy9Z');
  fake.ok('GET', '/api/user/models', []);
});
afterEach(() => {
  jest.useRealTimers();
});

/** The tab at /setting, beside a stand-in login page to see where deletion leads. */
const open = (options: RenderOptions = {}) =>
  renderPage(<PersonalTab />, {
    user: alice,
    route: '/setting',
    routes: [
      { path: '/setting', element: <PersonalTab /> },
      { path: '/login', element: <p>login page</p> },
    ],
    ...options,
  });

// Text queries, not role queries: role queries walk the whole antd tree and are slow here.
async function button(text: string | RegExp, container: HTMLElement = document.body): Promise<HTMLButtonElement> {
  return (await within(container).findByText(text)).closest('button') as HTMLButtonElement;
}

/** The dialog whose title is `title` (dialogs are rendered, hidden, before they open). */
async function dialog(title: string): Promise<HTMLElement> {
  return (await screen.findByText(title, { selector: '.ant-modal-title' })).closest('.ant-modal') as HTMLElement;
}

function bindingRow(label: string): HTMLElement {
  return screen.getByText(label, { selector: 'strong, strong *' }).closest('[role="group"]') as HTMLElement;
}

describe('personal settings: bindings', () => {
  it('shows each bound id or "not bound", and disables what the server turned off', async () => {
    open({ status: { github_oauth: true, wechat_login: false, linuxdo_oauth: false } });
    await screen.findByText('账户绑定');
    expect(within(bindingRow('邮箱')).getByText('未绑定')).toBeInTheDocument();
    expect(within(bindingRow('GitHub')).getByText('alice-gh')).toBeInTheDocument();
    // Already bound, so the code-hosting button is off even though the login method is on.
    expect(await button('绑定 GitHub 账号')).toBeDisabled();
    expect(await button('绑定微信', bindingRow('微信'))).toBeDisabled();
    expect(await button('绑定 LinuxDO 账号')).toBeDisabled();
    expect(await button('绑定 Telegram')).toBeDisabled();
  });

  it('opens the code-hosting authorization page with a fresh state', async () => {
    const opened = jest.spyOn(window, 'open').mockReturnValue(null);
    fake.ok('GET', '/api/oauth/state', 'st4te');
    open({ user: { ...alice, github_id: '' }, status: { github_oauth: true, github_client_id: 'client-1' } });
    fake.ok('GET', '/api/user/self', { ...alice, github_id: '' });
    await userEvent.click(await button('绑定 GitHub 账号'));
    await waitFor(() => expect(opened).toHaveBeenCalled());
    const url = new URL(opened.mock.calls[0]![0] as string);
    expect(url.origin + url.pathname).toBe('https://github.com/login/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({ client_id: 'client-1', state: 'st4te', scope: 'user:email' });
    opened.mockRestore();
  });

  it('binds Telegram with the fields the login widget hands back', async () => {
    fake.ok('POST', '/api/oauth/telegram/bind', null);
    const { container } = open({ status: { telegram_oauth: true, telegram_bot_name: 'gateway_bot' } });
    await screen.findByText('账户绑定');
    const script = await waitFor(() => container.querySelector('script[data-telegram-login="gateway_bot"]')!);
    const callback = /^(\w+)\(user\)$/.exec(script.getAttribute('data-onauth')!)![1]!;
    act(() =>
      (window as unknown as Record<string, (user: object) => void>)[callback]!({ id: 42, first_name: 'Alice', auth_date: 1700000000, hash: 'ab'.repeat(32) }),
    );
    expect(await screen.findByText('Telegram 账户绑定成功！')).toBeInTheDocument();
    const [call] = fake.callsTo('POST', '/api/oauth/telegram/bind');
    expect(call!.body).toEqual({ id: '42', first_name: 'Alice', auth_date: '1700000000', hash: 'ab'.repeat(32) });
  });

  it('asks for the email, then for the code, before binding', async () => {
    open();
    await userEvent.click(await button('绑定邮箱'));
    const bind = await dialog('绑定邮箱地址');
    await userEvent.click(await button('获取验证码', bind));
    expect(await within(bind).findByText('请输入邮箱！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/verification')).toHaveLength(0);

    await userEvent.type(within(bind).getByPlaceholderText('输入邮箱地址'), 'alice@example.com');
    await userEvent.click(await button('确认绑定', bind));
    expect(await within(bind).findByText('请输入邮箱验证码！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/oauth/email/bind')).toHaveLength(0);
  });

  it('sends the code, locks resending for 30 seconds, and binds the email', async () => {
    fake.ok('POST', '/api/verification', null);
    fake.ok('POST', '/api/oauth/email/bind', null);
    open();
    await userEvent.click(await button('绑定邮箱'));
    const bind = await dialog('绑定邮箱地址');
    await userEvent.type(within(bind).getByPlaceholderText('输入邮箱地址'), 'alice@example.com');
    // A fake clock from the moment the code is asked for, so the 30 s pass at once.
    jest.useFakeTimers();
    const user = userEvent.setup({ advanceTimers: jest.advanceTimersByTime });
    await user.click(await button('获取验证码', bind));

    expect(await screen.findByText('验证码发送成功，请检查邮箱！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/verification')[0]!.body).toEqual({ email: 'alice@example.com' });
    const locked = await button(/重新发送 \(30\)/, bind);
    expect(locked).toBeDisabled();

    await act(async () => jest.advanceTimersByTime(29_000));
    expect(await button(/重新发送 \(1\)/, bind)).toBeDisabled();
    await act(async () => jest.advanceTimersByTime(1_000));
    expect(await button('获取验证码', bind)).toBeEnabled();
    expect(fake.callsTo('POST', '/api/verification')).toHaveLength(1);

    // The lock is over; binding needs no clock.
    jest.useRealTimers();
    fake.ok('GET', '/api/user/self', { ...alice, email: 'alice@example.com' });
    await userEvent.type(within(bind).getByPlaceholderText('输入邮箱验证码'), ' 123456 ');
    await userEvent.click(await button('确认绑定', bind));
    expect(await screen.findByText('邮箱账户绑定成功！')).toBeInTheDocument();
    const [call] = fake.callsTo('POST', '/api/oauth/email/bind');
    expect(call!.body).toEqual({ email: 'alice@example.com', code: '123456' });
    await waitFor(() => expect(within(bindingRow('邮箱')).getByText('alice@example.com')).toBeInTheDocument());
  });

  it('does not lock the code button when the server refuses to send', async () => {
    fake.fail('POST', '/api/verification', 'email: already used');
    open();
    await userEvent.click(await button('绑定邮箱'));
    const bind = await dialog('绑定邮箱地址');
    await userEvent.type(within(bind).getByPlaceholderText('输入邮箱地址'), 'taken@example.com');
    await userEvent.click(await button('获取验证码', bind));
    expect(await screen.findByText('email: already used')).toBeInTheDocument();
    expect(await button('获取验证码', bind)).toBeEnabled();
  });

  it('does nothing for an empty WeChat code, and binds a typed one', async () => {
    fake.ok('POST', '/api/oauth/wechat/bind', null);
    open({ status: { wechat_login: true, wechat_qrcode: 'https://example.com/qr.png' } });
    await userEvent.click(await button('绑定微信', await waitFor(() => bindingRow('微信'))));
    const bind = await dialog('绑定微信');
    expect(within(bind).getByAltText('微信公众号二维码')).toHaveAttribute('src', 'https://example.com/qr.png');

    await userEvent.click(await button('绑 定', bind));
    await userEvent.type(within(bind).getByPlaceholderText('验证码'), '   ');
    await userEvent.click(await button('绑 定', bind));
    expect(fake.callsTo('POST', '/api/oauth/wechat/bind')).toHaveLength(0);
    expect(bind).toBeVisible();

    await userEvent.type(within(bind).getByPlaceholderText('验证码'), '8642');
    await userEvent.click(await button('绑 定', bind));
    expect(await screen.findByText('微信账户绑定成功！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/oauth/wechat/bind')[0]!.body).toEqual({ code: '8642' });
  });
});

describe('personal settings: access token and password', () => {
  it('generates the system access token, shows it and copies it', async () => {
    fake.ok('POST', '/api/user/token', 'tok-0123456789abcdef');
    open();
    expect(await screen.findByText(/之前的系统访问令牌将立即失效/)).toBeInTheDocument();
    await userEvent.click(await button('生成系统访问令牌'));
    expect(await screen.findByDisplayValue('tok-0123456789abcdef')).toBeInTheDocument();
    expect(writeText).toHaveBeenCalledWith('tok-0123456789abcdef');
    expect(await screen.findByText('令牌已重置并已复制到剪贴板')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/user/token')).toHaveLength(1);
  });

  it('refuses a new password whose confirmation differs', async () => {
    fake.ok('PUT', '/api/user/self', null);
    open();
    await userEvent.click(await button('修改密码', (await screen.findByText('安全设置')).closest('.ant-card') as HTMLElement));
    const change = await dialog('修改密码');
    await userEvent.type(within(change).getByLabelText('原密码'), 'old-password');
    await userEvent.type(within(change).getByLabelText('新密码'), 'new-password-1');
    await userEvent.type(within(change).getByLabelText('确认新密码'), 'new-password-2');
    await userEvent.click(await button('确认修改', change));
    expect(await within(change).findByText('两次输入的密码不一致！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/user/self')).toHaveLength(0);
  });

  it('keeps the new password within 8 to 20 characters', async () => {
    open();
    await userEvent.click(await button('修改密码', (await screen.findByText('安全设置')).closest('.ant-card') as HTMLElement));
    const change = await dialog('修改密码');
    await userEvent.type(within(change).getByLabelText('原密码'), 'old-password');
    await userEvent.type(within(change).getByLabelText('新密码'), 'short');
    await userEvent.click(await button('确认修改', change));
    expect(await within(change).findByText('密码长度应为 8 到 20 个字符')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/user/self')).toHaveLength(0);
  });

  it('sends the new and the current password', async () => {
    fake.ok('PUT', '/api/user/self', null);
    open();
    await userEvent.click(await button('修改密码', (await screen.findByText('安全设置')).closest('.ant-card') as HTMLElement));
    const change = await dialog('修改密码');
    await userEvent.type(within(change).getByLabelText('原密码'), 'old-password');
    await userEvent.type(within(change).getByLabelText('新密码'), 'new-password-1');
    await userEvent.type(within(change).getByLabelText('确认新密码'), 'new-password-1');
    await userEvent.click(await button('确认修改', change));
    expect(await screen.findByText('密码修改成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/user/self').map((call) => call.body)).toEqual([{ password: 'new-password-1', original_password: 'old-password' }]);
  });

  it('says that a new password ends the other sessions and the system access token (issue 22.6)', async () => {
    open();
    await userEvent.click(await button('修改密码', (await screen.findByText('安全设置')).closest('.ant-card') as HTMLElement));
    const change = await dialog('修改密码');
    expect(within(change).getByText('修改密码后，其他设备上的登录会退出，系统访问令牌也会失效；如仍需令牌，请重新生成。')).toBeInTheDocument();
  });
});

describe('personal settings: deleting the own account', () => {
  it('asks for the own username before deleting', async () => {
    fake.ok('DELETE', '/api/user/self', null);
    open();
    await userEvent.click(await button('删除个人账户'));
    const remove = await dialog('危险操作');
    expect(within(remove).getByText('您正在删除自己的帐户，将清空所有数据且不可恢复')).toBeInTheDocument();
    await userEvent.type(within(remove).getByPlaceholderText('输入你的账户名 alice 以确认删除'), 'alicia');
    await userEvent.click(await button('确认删除', remove));
    expect(await within(remove).findByText('请输入你的账户名以确认删除！')).toBeInTheDocument();
    expect(fake.callsTo('DELETE', '/api/user/self')).toHaveLength(0);
  });

  it('deletes the account, clears the stored user and goes to /login', async () => {
    fake.ok('DELETE', '/api/user/self', null);
    const { store, router } = open();
    await userEvent.click(await button('删除个人账户'));
    const remove = await dialog('危险操作');
    await userEvent.type(within(remove).getByPlaceholderText('输入你的账户名 alice 以确认删除'), 'alice');
    await userEvent.click(await button('确认删除', remove));

    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(fake.callsTo('DELETE', '/api/user/self')).toHaveLength(1);
    expect(store.getState().session.user).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
    expect(store.getState().api.queries).toEqual({});
    expect(await screen.findByText('账户已删除！')).toBeInTheDocument();
    expect(await screen.findByText('login page')).toBeInTheDocument();
  });

  it('stays when the server refuses, showing its message', async () => {
    fake.fail('DELETE', '/api/user/self', 'the super admin cannot delete their own account');
    const { store, router } = open();
    await userEvent.click(await button('删除个人账户'));
    const remove = await dialog('危险操作');
    await userEvent.type(within(remove).getByPlaceholderText('输入你的账户名 alice 以确认删除'), 'alice');
    await userEvent.click(await button('确认删除', remove));
    expect(await screen.findByText('the super admin cannot delete their own account')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/setting');
    expect(store.getState().session.user).not.toBeNull();
  });
});

describe('personal settings: profile', () => {
  it('edits the own username and display name at /user/edit with PUT /api/user/self, then returns', async () => {
    fake.ok('PUT', '/api/user/self');
    const { router } = renderPage(<PersonalTab />, {
      user: alice,
      route: '/setting',
      routes: [
        { path: '/setting', element: <PersonalTab /> },
        { path: '/user/edit', element: <EditProfilePage /> },
      ],
    });
    await userEvent.click(await button('修改个人信息'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/user/edit'));
    const username = await screen.findByDisplayValue('alice');
    // Not the admin's fields: no password, group or quota here.
    expect(screen.queryByText('分组')).not.toBeInTheDocument();
    expect(screen.queryByText('剩余额度')).not.toBeInTheDocument();
    expect(screen.queryByText('留空则不修改密码')).not.toBeInTheDocument();
    await userEvent.clear(username);
    await userEvent.type(username, 'alice2');
    const displayName = screen.getByDisplayValue('Alice');
    await userEvent.clear(displayName);
    await userEvent.type(displayName, 'Alice B');
    await userEvent.click(await button(/提\s*交/));
    expect(await screen.findByText('用户信息更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/user/self')[0]!.body).toEqual({ username: 'alice2', display_name: 'Alice B' });
    await waitFor(() => expect(router.state.location.pathname).toBe('/setting'));
  });

  it('refuses an empty username before sending anything', async () => {
    renderPage(<EditProfilePage />, { user: alice, route: '/user/edit' });
    await userEvent.clear(await screen.findByDisplayValue('alice'));
    await userEvent.click(await button(/提\s*交/));
    expect(await screen.findByText('用户名不能为空')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/user/self')).toHaveLength(0);
  });
});
