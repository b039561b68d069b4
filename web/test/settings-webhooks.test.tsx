import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role, type DeliveryView, type WebhookEndpoint } from '@aigw/contracts';
import { SettingsPage } from '../src/features/settings/SettingsPage';
import { WebhooksTab } from '../src/features/settings/webhooks/WebhooksTab';
import { makeUser, renderPage, setupFakeApi, stubClipboard } from './render';

const root = makeUser({ id: 1, username: 'root', role: Role.Root });

function endpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    id: 1,
    url: 'https://hooks.example.com/ledger',
    subjects: ['relay.usage.recorded', 'billing.>'],
    description: 'ledger sync',
    enabled: true,
    created_at: 1_732_600_000,
    updated_at: 1_732_600_000,
    ...overrides,
  };
}

function delivery(overrides: Partial<DeliveryView> = {}): DeliveryView {
  return {
    id: 7,
    kind: 'webhook',
    target: 'https://hooks.example.com/ledger',
    topic: 'relay.usage.recorded',
    webhook_id: 1,
    status: 'sent',
    attempts: 1,
    response_status: 200,
    last_error: '',
    created_at: 1_732_600_000,
    updated_at: 1_732_600_000,
    ...overrides,
  };
}

const page = (items: DeliveryView[]) => ({ items, total: items.length, page: 1, page_size: 10 });
const row = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;
const dialog = () => screen.getByRole('dialog');
const fieldError = (label: string) => within(dialog()).getByLabelText(label).closest('.ant-form-item') as HTMLElement;

configure({ asyncUtilTimeout: 10_000, defaultHidden: true });
jest.setTimeout(90_000);

const fake = setupFakeApi();
let clipboard: jest.Mock;
beforeEach(() => {
  clipboard = stubClipboard();
  fake.ok('GET', '/api/webhook/deliveries', page([]));
});
afterEach(() => {
  jest.restoreAllMocks();
});

async function openCreateDialog() {
  await userEvent.click(await screen.findByRole('button', { name: /添加端点/ }));
  await screen.findByRole('dialog');
}

/** Types each pattern into the subject picker (a tags select) and picks it. */
async function chooseSubjects(...patterns: string[]) {
  const input = within(dialog()).getByLabelText('订阅事件');
  for (const pattern of patterns) {
    await userEvent.type(input, pattern);
    // The typed pattern is offered as an option (a new tag, or the matching choice): picking it adds it.
    await userEvent.click((await screen.findAllByTitle(pattern)).at(-1)!);
  }
}

describe('webhook endpoints', () => {
  it('lists endpoints with their filters and state', async () => {
    fake.ok('GET', '/api/webhook/', [
      endpoint(),
      endpoint({ id: 2, url: 'https://ops.example.com/alerts', subjects: ['*.channel.*'], description: '', enabled: false }),
    ]);
    renderPage(<WebhooksTab />, { user: root });
    expect(await screen.findByText('https://hooks.example.com/ledger')).toBeInTheDocument();
    expect(within(row('https://hooks.example.com/ledger')).getByText('billing.>')).toBeInTheDocument();
    expect(within(row('https://hooks.example.com/ledger')).getByText('ledger sync')).toBeInTheDocument();
    expect(within(row('https://hooks.example.com/ledger')).getByRole('switch')).toBeChecked();
    expect(within(row('https://ops.example.com/alerts')).getByRole('switch')).not.toBeChecked();
  });

  it('validates the form with the field named, then creates and shows the secret once', async () => {
    fake.ok('GET', '/api/webhook/', []);
    const created = {
      ...endpoint({ id: 5, url: 'https://hooks.example.com/new', subjects: ['relay.usage.recorded'], description: '' }),
      secret: 'whsec_shown-once-0123456789abcdefghijklmnopqrstu',
    };
    fake.ok('POST', '/api/webhook/', created);
    renderPage(<WebhooksTab />, { user: root });
    await openCreateDialog();
    await userEvent.click(within(dialog()).getByRole('button', { name: /保\s*存/ }));
    expect(await within(fieldError('回调地址')).findByText('请输入回调地址')).toBeInTheDocument();
    expect(within(fieldError('订阅事件')).getByText('请至少选择一个事件')).toBeInTheDocument();

    await userEvent.type(within(dialog()).getByLabelText('回调地址'), 'ftp://hooks.example.com/new');
    await chooseSubjects('billing.tokn.>');
    expect(await within(fieldError('回调地址')).findByText('请输入以 http:// 或 https:// 开头的完整地址')).toBeInTheDocument();
    expect(await within(fieldError('订阅事件')).findByText('“billing.tokn.>”不匹配任何事件')).toBeInTheDocument();
    await userEvent.type(within(dialog()).getByLabelText('签名密钥'), 'short');
    expect(await within(fieldError('签名密钥')).findByText('密钥至少 32 个字符，且只能是不含空格的可打印 ASCII 字符')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/webhook/')).toHaveLength(0);

    const url = within(dialog()).getByLabelText('回调地址');
    await userEvent.clear(url);
    await userEvent.type(url, 'https://hooks.example.com/new');
    await userEvent.clear(within(dialog()).getByLabelText('签名密钥'));
    await userEvent.click(within(fieldError('订阅事件')).getByLabelText('close'));
    await chooseSubjects('relay.usage.recorded');
    await userEvent.click(within(dialog()).getByRole('button', { name: /保\s*存/ }));

    expect(await screen.findByText('密钥只显示这一次，关闭后无法再查看，请立即复制并妥善保存。')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/webhook/')[0]!.body).toEqual({
      url: 'https://hooks.example.com/new',
      subjects: ['relay.usage.recorded'],
      description: '',
      enabled: true,
    });
    expect(screen.getByDisplayValue(created.secret)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: /复\s*制/ }));
    expect(clipboard).toHaveBeenCalledWith(created.secret);
    await userEvent.click(screen.getByRole('button', { name: /我已保存/ }));
    await waitFor(() => expect(screen.queryByDisplayValue(created.secret)).not.toBeInTheDocument());
  });

  it('shows a refusal the server names at its field (the egress guard on the URL)', async () => {
    fake.ok('GET', '/api/webhook/', []);
    fake.fail(
      'POST',
      '/api/webhook/',
      'url: egress blocked: 10.0.0.8 is a private network (RFC 1918) address (10.0.0.0/8); private-network upstreams are off, a root admin can allow them with the option AllowPrivateNetworkUpstreams',
    );
    renderPage(<WebhooksTab />, { user: root });
    await openCreateDialog();
    await userEvent.type(within(dialog()).getByLabelText('回调地址'), 'http://10.0.0.8/hook');
    await chooseSubjects('billing.>');
    await userEvent.click(within(dialog()).getByRole('button', { name: /保\s*存/ }));
    expect(await within(fieldError('回调地址')).findByText(/^egress blocked: 10\.0\.0\.8 is a private network/)).toBeInTheDocument();
    expect(dialog()).toBeInTheDocument();
  });

  it('edits without a secret field, and toggles enabled', async () => {
    fake.ok('GET', '/api/webhook/', [endpoint()]);
    fake.on('PUT', '/api/webhook/', (call) => ({ body: { success: true, message: '', data: { ...endpoint(), ...call.body } } }));
    renderPage(<WebhooksTab />, { user: root });
    await screen.findByText('https://hooks.example.com/ledger');
    await userEvent.click(within(row('https://hooks.example.com/ledger')).getByRole('button', { name: /编\s*辑/ }));
    expect(within(dialog()).queryByLabelText('签名密钥')).not.toBeInTheDocument();
    const description = within(dialog()).getByLabelText('描述');
    await userEvent.clear(description);
    await userEvent.type(description, 'renamed');
    await userEvent.click(within(dialog()).getByRole('button', { name: /保\s*存/ }));
    expect(await screen.findByText('端点已更新')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/webhook/')[0]!.body).toEqual({
      id: 1,
      url: 'https://hooks.example.com/ledger',
      subjects: ['relay.usage.recorded', 'billing.>'],
      description: 'renamed',
      enabled: true,
    });

    await userEvent.click(within(row('https://hooks.example.com/ledger')).getByRole('switch'));
    await waitFor(() => expect(fake.callsTo('PUT', '/api/webhook/')).toHaveLength(2));
    expect(fake.callsTo('PUT', '/api/webhook/')[1]!.body).toEqual({ id: 1, enabled: false });
  });

  it('sends a test ping and reports its outcome', async () => {
    fake.ok('GET', '/api/webhook/', [endpoint()]);
    fake.ok('POST', '/api/webhook/1/test', { ok: false, status_code: 500, duration_ms: 12, error: 'HTTP 500: receiver down' }, 'HTTP 500: receiver down');
    renderPage(<WebhooksTab />, { user: root });
    await screen.findByText('https://hooks.example.com/ledger');
    await userEvent.click(within(row('https://hooks.example.com/ledger')).getByRole('button', { name: /测\s*试/ }));
    expect(await screen.findByText('测试请求失败：HTTP 500: receiver down')).toBeInTheDocument();
  });

  it('rotates the secret after confirming and shows the new one once; deletes after confirming', async () => {
    fake.ok('GET', '/api/webhook/', [endpoint()]);
    fake.ok('POST', '/api/webhook/1/rotate', { ...endpoint(), secret: 'whsec_rotated-0123456789abcdefghijklmnopqrstuvwx' });
    fake.ok('DELETE', '/api/webhook/1', null);
    renderPage(<WebhooksTab />, { user: root });
    await screen.findByText('https://hooks.example.com/ledger');
    await userEvent.click(within(row('https://hooks.example.com/ledger')).getByRole('button', { name: /更换密钥/ }));
    await userEvent.click(await screen.findByRole('button', { name: /确\s*定/ }));
    expect(await screen.findByDisplayValue('whsec_rotated-0123456789abcdefghijklmnopqrstuvwx')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: /我已保存/ }));

    await userEvent.click(within(row('https://hooks.example.com/ledger')).getByRole('button', { name: /删\s*除/ }));
    const confirms = await screen.findAllByRole('button', { name: /确\s*定/ });
    await userEvent.click(confirms.at(-1)!);
    expect(await screen.findByText('端点已删除')).toBeInTheDocument();
    expect(fake.callsTo('DELETE', '/api/webhook/1')).toHaveLength(1);
  });
});

describe('deliveries', () => {
  it('shows mail and webhook deliveries with failures and their errors, filtered by kind and status', async () => {
    fake.ok('GET', '/api/webhook/', []);
    fake.on('GET', '/api/webhook/deliveries', (call) => ({
      body: {
        success: true,
        message: '',
        data:
          call.query.get('status') === 'failed'
            ? page([
                delivery({
                  id: 9,
                  kind: 'mail',
                  target: 'alice@example.com',
                  topic: 'password_reset',
                  webhook_id: 0,
                  status: 'failed',
                  attempts: 5,
                  response_status: 0,
                  last_error: 'connect ECONNREFUSED 10.0.0.5:587',
                }),
              ])
            : page([delivery(), delivery({ id: 8, status: 'pending', attempts: 2, response_status: 503, last_error: 'HTTP 503: busy' })]),
      },
    }));
    renderPage(<WebhooksTab />, { user: root });
    expect(await screen.findByText('已送达')).toBeInTheDocument();
    expect(within(row('HTTP 503: busy')).getByText('等待/重试中')).toBeInTheDocument();
    expect(within(row('HTTP 503: busy')).getByText('503')).toBeInTheDocument();
    expect(Object.fromEntries(fake.callsTo('GET', '/api/webhook/deliveries')[0]!.query)).toEqual({ kind: '', status: '', p: '1', page_size: '10' });

    const status = screen.getByLabelText('状态', { selector: 'input' });
    await userEvent.click(status);
    await userEvent.click(await screen.findByTitle('失败'));
    expect(await screen.findByText('connect ECONNREFUSED 10.0.0.5:587')).toBeInTheDocument();
    expect(within(row('alice@example.com')).getByText('邮件')).toBeInTheDocument();
    expect(within(row('alice@example.com')).getByText('password_reset')).toBeInTheDocument();
    expect(Object.fromEntries(fake.callsTo('GET', '/api/webhook/deliveries').at(-1)!.query)).toEqual({ kind: '', status: 'failed', p: '1', page_size: '10' });
  });
});

describe('the settings tab', () => {
  it('opens for root at ?tab=webhooks', async () => {
    fake.ok('GET', '/api/webhook/', [endpoint()]);
    renderPage(<SettingsPage />, { user: root, route: '/setting?tab=webhooks' });
    expect(await screen.findByText('https://hooks.example.com/ledger')).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Webhooks' })).toBeInTheDocument();
  });
});
