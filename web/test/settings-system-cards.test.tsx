import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role } from '@aigw/contracts';
import { EmailWhitelistCard } from '../src/features/settings/system/EmailWhitelistCard';
import { GitHubCard, OidcCard } from '../src/features/settings/system/OAuthCards';
import { PaymentCard } from '../src/features/settings/system/PaymentCard';
import { TelegramCard, TurnstileCard, WeChatCard } from '../src/features/settings/system/ProviderCards';
import { GeneralCard, WorkerCard } from '../src/features/settings/system/ServerCards';
import { SmtpCard } from '../src/features/settings/system/SmtpCard';
import { SystemTab } from '../src/features/settings/system/SystemTab';
import { makeUser, renderPage, setupFakeApi, stubClipboard } from './render';

// Saving goes through the API and a toast: give a loaded machine more than the default second.
configure({ asyncUtilTimeout: 5000 });

const root = makeUser({ id: 1, username: 'root', role: Role.Root });
const fake = setupFakeApi();

const baseOptions: Record<string, string> = {
  ServerAddress: 'https://gw.example.com',
  WorkerUrl: '',
  PayAddress: 'https://pay.example.com',
  EpayId: '1001',
  Price: '7.3',
  MinTopUp: '1',
  CustomCallbackAddress: '',
  TopupGroupRatio: '{"default":1,"vip":1}',
  EmailDomainRestrictionEnabled: 'false',
  EmailAliasRestrictionEnabled: 'false',
  EmailDomainWhitelist: 'gmail.com,qq.com',
  SMTPServer: 'smtp.example.com',
  SMTPPort: '587',
  SMTPAccount: 'mailer',
  SMTPFrom: 'mailer@example.com',
  SMTPSSLEnabled: 'false',
  AllowPrivateNetworkSmtp: 'false',
  GitHubClientId: '',
  WeChatServerAddress: '',
  WeChatAccountQRCodeImageURL: '',
  TelegramBotName: '',
  TurnstileSiteKey: '',
  'oidc.client_id': '',
};

/** The server's options: GET lists the non-secret ones, PUT stores one (as the identity service does). */
function serve(overrides: Record<string, string> = {}) {
  const options = { ...baseOptions, ...overrides };
  fake.on('GET', '/api/option/', () => ({ body: { success: true, message: '', data: Object.entries(options).map(([key, value]) => ({ key, value })) } }));
  fake.on('PUT', '/api/option/', (call) => {
    if (!/Secret|Key$|Token$/.test(call.body.key)) options[call.body.key] = call.body.value;
    return { body: { success: true, message: '' } };
  });
}

beforeEach(() => {
  serve();
});

const puts = () => fake.callsTo('PUT', '/api/option/').map((call) => call.body);
const click = (name: string | RegExp) => userEvent.click(screen.getByRole('button', { name }));

/** Replaces a field's text at once (typing key by key is slow and adds nothing here). */
async function replace(label: string, text: string) {
  const input = await screen.findByLabelText(label);
  fireEvent.change(input, { target: { value: text } });
  return input;
}

describe('system tab', () => {
  it('shows every card, all from one load of the options', async () => {
    renderPage(<SystemTab />, { user: root });
    for (const title of [
      '通用设置',
      '代理设置',
      '支付设置',
      '配置登录注册',
      '配置邮箱域名白名单',
      '配置 SMTP',
      '配置 GitHub OAuth App',
      '配置 WeChat Server',
      '配置 Telegram 登录',
      '配置 WxPusher 与用户通知',
      '配置 Turnstile',
      '配置 Linux DO OAuth',
      '配置 OIDC',
    ]) {
      expect(await screen.findByText(title)).toBeInTheDocument();
    }
    expect(fake.callsTo('GET', '/api/option/')).toHaveLength(1);
    expect(fake.unexpected).toEqual([]);
  });

  it('speaks English when the console does', async () => {
    renderPage(<PaymentCard />, { user: root, locale: 'en-US' });
    expect(await screen.findByLabelText('Top-up price (money per US dollar)')).toHaveValue('7.3');
    expect(screen.getByRole('button', { name: 'Update payment settings' })).toBeInTheDocument();
  });
});

describe('general and worker cards', () => {
  it('saves the server address without its trailing slashes', async () => {
    renderPage(<GeneralCard />, { user: root });
    await replace('服务器地址', 'https://new.example.com///');
    await click('更新服务器地址');
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([{ key: 'ServerAddress', value: 'https://new.example.com' }]);
  });

  it('refuses a server address that is not a URL', async () => {
    renderPage(<GeneralCard />, { user: root });
    await replace('服务器地址', 'not a url');
    await click('更新服务器地址');
    expect(await screen.findByText('请检查输入')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('sends the worker key only when one is typed, and the worker URL without trailing slash', async () => {
    renderPage(<WorkerCard />, { user: root });
    expect(await screen.findByLabelText('Worker 密钥')).toHaveValue('');
    await replace('Worker 地址', 'https://worker.example.com/');
    await click('更新 Worker 设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([{ key: 'WorkerUrl', value: 'https://worker.example.com' }]);

    await replace('Worker 密钥', 'wk-123');
    await click('更新 Worker 设置');
    await waitFor(() => expect(puts()).toHaveLength(2));
    expect(puts()[1]).toEqual({ key: 'WorkerValidKey', value: 'wk-123' });
  });
});

describe('payment card', () => {
  it('needs the server address stored first', async () => {
    serve({ ServerAddress: '' });
    renderPage(<PaymentCard />, { user: root });
    await replace('易支付商户ID', '2002');
    await click('更新支付设置');
    expect(await screen.findByText('请先填写服务器地址')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('checks the top-up group ratio JSON on blur and refuses to save it', async () => {
    renderPage(<PaymentCard />, { user: root });
    const ratio = await screen.findByLabelText('充值分组倍率');
    fireEvent.change(ratio, { target: { value: '{"default": 1,' } });
    fireEvent.blur(ratio);
    expect(await screen.findByText('充值分组倍率不是合法的 JSON 字符串')).toBeInTheDocument();
    // The card's own message, not the generic one as well.
    expect(screen.queryByText('不是合法的 JSON 字符串')).not.toBeInTheDocument();
    await click('更新支付设置');
    expect(await screen.findByText('请检查输入')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('saves the changed settings: addresses without trailing slashes, the key only when typed', async () => {
    renderPage(<PaymentCard />, { user: root });
    await replace('支付地址', 'https://pay2.example.com/');
    await replace('回调地址', 'https://cb.example.com//');
    await replace('充值价格（x元/美金）', '7.5');
    const ratio = screen.getByLabelText('充值分组倍率');
    fireEvent.change(ratio, { target: { value: '{"default": 1, "vip": 0.9}' } });
    fireEvent.blur(ratio);
    await click('更新支付设置');
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([
      { key: 'PayAddress', value: 'https://pay2.example.com' },
      { key: 'Price', value: '7.5' },
      { key: 'CustomCallbackAddress', value: 'https://cb.example.com' },
      { key: 'TopupGroupRatio', value: '{"default":1,"vip":0.9}' },
    ]);
    expect(screen.getByLabelText('易支付商户密钥')).toHaveValue('');
  });

  it('sends the merchant key when one is typed', async () => {
    renderPage(<PaymentCard />, { user: root });
    await replace('易支付商户密钥', 'epay-secret');
    await click('更新支付设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([{ key: 'EpayKey', value: 'epay-secret' }]);
  });

  it('keeps the price at 0 or more and the minimum top-up at 1 or more', async () => {
    renderPage(<PaymentCard />, { user: root });
    const price = await replace('充值价格（x元/美金）', '-3');
    fireEvent.blur(price);
    const minimum = await replace('最低充值美元数量', '0');
    fireEvent.blur(minimum);
    await click('更新支付设置');
    // Clamped by the inputs to their minimums: the price 0 is a change, the minimum 1 is not.
    await screen.findByText('保存成功');
    expect(puts()).toEqual([{ key: 'Price', value: '0' }]);
  });
});

describe('email whitelist card', () => {
  const addButton = () => screen.getByRole('button', { name: /^添\s?加$/ });

  it('adds a trimmed, lowercased domain and saves the joined list', async () => {
    renderPage(<EmailWhitelistCard />, { user: root });
    expect(await screen.findByText('gmail.com')).toBeInTheDocument();
    await replace('允许的邮箱域名', '  Example.COM ');
    await userEvent.click(addButton());
    expect(screen.getByText('example.com')).toBeInTheDocument();
    expect(screen.getByLabelText('允许的邮箱域名')).toHaveValue('');
    await userEvent.click(screen.getByRole('switch', { name: '启用邮箱域名白名单' }));
    await click('保存邮箱域名白名单设置');
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([
      { key: 'EmailDomainRestrictionEnabled', value: 'true' },
      { key: 'EmailDomainWhitelist', value: 'gmail.com,qq.com,example.com' },
    ]);
  });

  it('does not add an empty or duplicate domain', async () => {
    renderPage(<EmailWhitelistCard />, { user: root });
    const input = await screen.findByLabelText('允许的邮箱域名');
    fireEvent.change(input, { target: { value: '   ' } });
    await userEvent.click(addButton());
    await userEvent.clear(input);
    await userEvent.type(input, 'QQ.com{Enter}');
    expect(await screen.findByText('域名 qq.com 已在白名单中')).toBeInTheDocument();
    expect(screen.getAllByText('qq.com')).toHaveLength(1);
    await click('保存邮箱域名白名单设置');
    expect(await screen.findByText('你似乎并没有修改什么')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('removes a domain with its tag', async () => {
    renderPage(<EmailWhitelistCard />, { user: root });
    const tag = (await screen.findByText('gmail.com')).closest('.ant-tag') as HTMLElement;
    await userEvent.click(within(tag).getByRole('button', { name: '关闭' }));
    await waitFor(() => expect(screen.queryByText('gmail.com')).not.toBeInTheDocument());
    await click('保存邮箱域名白名单设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([{ key: 'EmailDomainWhitelist', value: 'qq.com' }]);
  });
});

describe('SMTP card', () => {
  it('shows the stored settings, sends only changes and never an empty token', async () => {
    renderPage(<SmtpCard />, { user: root });
    expect(await screen.findByLabelText('SMTP 端口')).toHaveValue('587');
    expect(screen.getByLabelText('SMTP 访问凭证')).toHaveValue('');
    await replace('SMTP 服务器地址', 'smtp.qq.com');
    await replace('SMTP 端口', '465');
    await userEvent.click(screen.getByRole('switch', { name: '启用SMTP SSL' }));
    await click('保存 SMTP 设置');
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([
      { key: 'SMTPServer', value: 'smtp.qq.com' },
      { key: 'SMTPPort', value: '465' },
      { key: 'SMTPSSLEnabled', value: 'true' },
    ]);
  });

  it('sends the token when one is typed', async () => {
    renderPage(<SmtpCard />, { user: root });
    await replace('SMTP 访问凭证', 'smtp-pass');
    await click('保存 SMTP 设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([{ key: 'SMTPToken', value: 'smtp-pass' }]);
  });

  it('saves the private-network switch before the server it governs, with a warning (issue 22.7)', async () => {
    renderPage(<SmtpCard />, { user: root });
    expect(
      await screen.findByText('开启后 SMTP 服务器可以是本机或内网地址（如内部邮件中继）；关闭时保存和发信都会拒绝这类地址。仅在信任该网络时开启。'),
    ).toBeInTheDocument();
    await replace('SMTP 服务器地址', '10.0.0.25');
    await userEvent.click(screen.getByRole('switch', { name: '允许内网 SMTP 服务器' }));
    await click('保存 SMTP 设置');
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([
      { key: 'AllowPrivateNetworkSmtp', value: 'true' },
      { key: 'SMTPServer', value: '10.0.0.25' },
    ]);
  });
});

describe('login provider cards', () => {
  it('shows the GitHub callback URL to copy, and saves the client id and the typed secret', async () => {
    const writeText = stubClipboard();
    renderPage(<GitHubCard />, { user: root });
    expect(await screen.findByLabelText('回调地址')).toHaveValue('https://gw.example.com/oauth/github');
    await userEvent.click(screen.getByRole('button', { name: /^复\s?制$/ }));
    expect(writeText).toHaveBeenCalledWith('https://gw.example.com/oauth/github');
    expect(await screen.findByText('已复制：https://gw.example.com/oauth/github')).toBeInTheDocument();

    await replace('GitHub Client ID', 'gh-client');
    await click('保存 GitHub OAuth 设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([{ key: 'GitHubClientId', value: 'gh-client' }]);
    await replace('GitHub Client Secret', 'gh-secret');
    await click('保存 GitHub OAuth 设置');
    await waitFor(() => expect(puts()).toHaveLength(2));
    expect(puts()[1]).toEqual({ key: 'GitHubClientSecret', value: 'gh-secret' });
  });

  it('saves the WeChat server address without trailing slash and its token when typed', async () => {
    renderPage(<WeChatCard />, { user: root });
    await replace('WeChat Server 服务器地址', 'https://wx.example.com/');
    await replace('WeChat Server 访问凭证', 'wx-token');
    await click('保存 WeChat Server 设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([
      { key: 'WeChatServerAddress', value: 'https://wx.example.com' },
      { key: 'WeChatServerToken', value: 'wx-token' },
    ]);
  });

  it('saves the Telegram bot name and the Turnstile site key', async () => {
    renderPage(
      <>
        <TelegramCard />
        <TurnstileCard />
      </>,
      { user: root },
    );
    await replace('Telegram Bot 名称', 'gw_bot');
    await click('保存 Telegram 登录设置');
    await waitFor(() => expect(puts()).toEqual([{ key: 'TelegramBotName', value: 'gw_bot' }]));
    await replace('Turnstile Site Key', '0x4AAA');
    await click('保存 Turnstile 设置');
    await waitFor(() => expect(puts()).toHaveLength(2));
    expect(puts()[1]).toEqual({ key: 'TurnstileSiteKey', value: '0x4AAA' });
  });

  it('saves the OIDC endpoints and shows its callback URL', async () => {
    renderPage(<OidcCard />, { user: root });
    expect(await screen.findByLabelText('回调地址')).toHaveValue('https://gw.example.com/oauth/oidc');
    await replace('Client ID', 'oidc-client');
    await replace('Authorization Endpoint', 'https://id.example.com/authorize');
    await click('保存 OIDC 设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([
      { key: 'oidc.client_id', value: 'oidc-client' },
      { key: 'oidc.authorization_endpoint', value: 'https://id.example.com/authorize' },
    ]);
  });

  it("shows the server's reason when a save fails", async () => {
    fake.fail('PUT', '/api/option/', 'GitHubClientId: too long');
    renderPage(<GitHubCard />, { user: root });
    await replace('GitHub Client ID', 'x');
    await click('保存 GitHub OAuth 设置');
    expect(await screen.findByText('保存失败，请重试: GitHubClientId: too long')).toBeInTheDocument();
  });
});
