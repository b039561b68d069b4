import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role } from '@aigw/contracts';
import { LoginSwitchesCard } from '../src/features/settings/system/LoginSwitchesCard';
import { makeUser, renderPage, setupFakeApi } from './render';

// Saving goes through the API and a toast: give a loaded machine more than the default second.
configure({ asyncUtilTimeout: 5000 });

const root = makeUser({ id: 1, username: 'root', role: Role.Root });
const fake = setupFakeApi();

const baseOptions: Record<string, string> = {
  PasswordLoginEnabled: 'true',
  PasswordRegisterEnabled: 'true',
  EmailVerificationEnabled: 'false',
  GitHubOAuthEnabled: 'false',
  LinuxDOOAuthEnabled: 'false',
  'oidc.enabled': 'false',
  WeChatAuthEnabled: 'false',
  TelegramOAuthEnabled: 'false',
  TurnstileCheckEnabled: 'false',
  RegisterEnabled: 'true',
  GitHubClientId: '',
  LinuxDOClientId: '',
  'oidc.client_id': '',
  'oidc.authorization_endpoint': '',
  'oidc.token_endpoint': '',
  'oidc.user_info_endpoint': '',
  WeChatServerAddress: '',
  TelegramBotName: '',
  TurnstileSiteKey: '',
};

/** The server's options: GET lists them, PUT stores one, so the refetch shows what was saved. */
function serve(overrides: Record<string, string> = {}) {
  const options = { ...baseOptions, ...overrides };
  fake.on('GET', '/api/option/', () => ({ body: { success: true, message: '', data: Object.entries(options).map(([key, value]) => ({ key, value })) } }));
  fake.on('PUT', '/api/option/', (call) => {
    options[call.body.key] = call.body.value;
    return { body: { success: true, message: '' } };
  });
}

const puts = () => fake.callsTo('PUT', '/api/option/').map((call) => call.body);
const toggle = (name: string) => screen.findByRole('switch', { name });
/** antd writes two-character Chinese button texts with a space ("确 定"). */
const dialogButton = (dialog: HTMLElement, text: '确定' | '取消') => within(dialog).getByRole('button', { name: new RegExp(`^${text[0]}\\s?${text[1]}$`) });

describe('login and registration switches', () => {
  it('shows the stored state of every switch', async () => {
    serve({ EmailVerificationEnabled: 'true', RegisterEnabled: 'false' });
    renderPage(<LoginSwitchesCard />, { user: root });
    expect(await toggle('允许通过密码进行登录')).toBeChecked();
    expect(await toggle('允许通过密码进行注册')).toBeChecked();
    expect(await toggle('通过密码注册时需要进行邮箱验证')).toBeChecked();
    expect(await toggle('允许通过 GitHub 账户登录 & 注册')).not.toBeChecked();
    expect(await toggle('允许通过 Linux DO 账户登录 & 注册')).not.toBeChecked();
    expect(await toggle('允许通过 OIDC 登录 & 注册')).not.toBeChecked();
    expect(await toggle('允许通过微信登录 & 注册')).not.toBeChecked();
    expect(await toggle('允许通过 Telegram 进行登录')).not.toBeChecked();
    expect(await toggle('启用 Turnstile 用户校验')).not.toBeChecked();
    expect(await toggle('允许新用户注册（此项为否时，新用户将无法以任何方式进行注册）')).not.toBeChecked();
  });

  it('saves a switch as soon as it is toggled', async () => {
    serve();
    renderPage(<LoginSwitchesCard />, { user: root });
    await userEvent.click(await toggle('通过密码注册时需要进行邮箱验证'));
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([{ key: 'EmailVerificationEnabled', value: 'true' }]);
    await waitFor(async () => expect(await toggle('通过密码注册时需要进行邮箱验证')).toBeChecked());

    await userEvent.click(await toggle('允许新用户注册（此项为否时，新用户将无法以任何方式进行注册）'));
    await waitFor(() => expect(puts()).toHaveLength(2));
    expect(puts()[1]).toEqual({ key: 'RegisterEnabled', value: 'false' });
    await waitFor(async () => expect(await toggle('允许新用户注册（此项为否时，新用户将无法以任何方式进行注册）')).not.toBeChecked());
  });

  it('asks before turning password login off: cancel keeps it on and sends nothing', async () => {
    serve();
    renderPage(<LoginSwitchesCard />, { user: root });
    await userEvent.click(await toggle('允许通过密码进行登录'));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveAccessibleName('确定要取消密码登录吗？');
    expect(within(dialog).getByText('如果你没有设置第三方登录方式，你将无法登录！')).toBeInTheDocument();
    await userEvent.click(dialogButton(dialog, '取消'));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(puts()).toEqual([]);
    expect(await toggle('允许通过密码进行登录')).toBeChecked();
  });

  it('turns password login off once confirmed', async () => {
    serve();
    renderPage(<LoginSwitchesCard />, { user: root });
    await userEvent.click(await toggle('允许通过密码进行登录'));
    await userEvent.click(dialogButton(await screen.findByRole('dialog'), '确定'));
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([{ key: 'PasswordLoginEnabled', value: 'false' }]);
    await waitFor(async () => expect(await toggle('允许通过密码进行登录')).not.toBeChecked());
  });

  it('turns password login back on without asking', async () => {
    serve({ PasswordLoginEnabled: 'false' });
    renderPage(<LoginSwitchesCard />, { user: root });
    await userEvent.click(await toggle('允许通过密码进行登录'));
    await waitFor(() => expect(puts()).toEqual([{ key: 'PasswordLoginEnabled', value: 'true' }]));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  const methods: Array<{ label: string; key: string; message: string; config: Record<string, string> }> = [
    {
      label: '允许通过 GitHub 账户登录 & 注册',
      key: 'GitHubOAuthEnabled',
      message: '请先填入 GitHub Client Id 以及 GitHub Client Secret！',
      config: { GitHubClientId: 'gh-client' },
    },
    {
      label: '允许通过微信登录 & 注册',
      key: 'WeChatAuthEnabled',
      message: '请先填入 WeChat Server 服务器地址以及访问凭证！',
      config: { WeChatServerAddress: 'https://wx.example.com' },
    },
    {
      label: '启用 Turnstile 用户校验',
      key: 'TurnstileCheckEnabled',
      message: '请先填入 Turnstile Site Key 以及 Secret Key！',
      config: { TurnstileSiteKey: '0x4AAA' },
    },
    {
      label: '允许通过 Linux DO 账户登录 & 注册',
      key: 'LinuxDOOAuthEnabled',
      message: '请先填入 Linux DO Client Id 以及 Linux DO Client Secret！',
      config: { LinuxDOClientId: 'ld-client' },
    },
    {
      label: '允许通过 Telegram 进行登录',
      key: 'TelegramOAuthEnabled',
      message: '请先填入 Telegram Bot 名称以及 Bot Token！',
      config: { TelegramBotName: 'gw_bot' },
    },
    {
      label: '允许通过 OIDC 登录 & 注册',
      key: 'oidc.enabled',
      message: '请先填入 OIDC Client Id、Client Secret 以及各端点地址！',
      config: {
        'oidc.client_id': 'oidc-client',
        'oidc.authorization_endpoint': 'https://id.example.com/authorize',
        'oidc.token_endpoint': 'https://id.example.com/token',
        'oidc.user_info_endpoint': 'https://id.example.com/userinfo',
      },
    },
  ];

  it.each(methods)('refuses to enable "$label" before its configuration, and sends nothing', async ({ label, message }) => {
    serve();
    renderPage(<LoginSwitchesCard />, { user: root });
    await userEvent.click(await toggle(label));
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(puts()).toEqual([]);
    expect(await toggle(label)).not.toBeChecked();
  });

  it.each(methods)('enables "$label" once it is configured', async ({ label, key, config }) => {
    serve(config);
    renderPage(<LoginSwitchesCard />, { user: root });
    await userEvent.click(await toggle(label));
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([{ key, value: 'true' }]);
    await waitFor(async () => expect(await toggle(label)).toBeChecked());
  });

  it('refuses OIDC while only some endpoints are stored', async () => {
    serve({ 'oidc.client_id': 'oidc-client', 'oidc.authorization_endpoint': 'https://id.example.com/authorize' });
    renderPage(<LoginSwitchesCard />, { user: root });
    await userEvent.click(await toggle('允许通过 OIDC 登录 & 注册'));
    expect(await screen.findByText('请先填入 OIDC Client Id、Client Secret 以及各端点地址！')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('turns a login method off without checking its configuration', async () => {
    serve({ GitHubOAuthEnabled: 'true' });
    renderPage(<LoginSwitchesCard />, { user: root });
    await userEvent.click(await toggle('允许通过 GitHub 账户登录 & 注册'));
    await waitFor(() => expect(puts()).toEqual([{ key: 'GitHubOAuthEnabled', value: 'false' }]));
    await waitFor(async () => expect(await toggle('允许通过 GitHub 账户登录 & 注册')).not.toBeChecked());
  });

  it("shows the server's refusal and leaves the switch off", async () => {
    serve({ GitHubClientId: 'gh-client' });
    fake.fail('PUT', '/api/option/', 'GitHubOAuthEnabled: set GitHubClientSecret first');
    renderPage(<LoginSwitchesCard />, { user: root });
    await userEvent.click(await toggle('允许通过 GitHub 账户登录 & 注册'));
    expect(await screen.findByText('保存失败，请重试: GitHubOAuthEnabled: set GitHubClientSecret first')).toBeInTheDocument();
    expect(await toggle('允许通过 GitHub 账户登录 & 注册')).not.toBeChecked();
  });
});
