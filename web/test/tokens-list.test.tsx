import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TokenView } from '@aigw/contracts';
import { TokensPage } from '../src/features/tokens/TokensPage';
import { useTokenKeys } from '../src/features/tokens/use-token-keys';
import { makeUser, renderPage, setupFakeApi, stubClipboard } from './render';

const now = Math.floor(Date.now() / 1000);
const user = makeUser({ id: 3, group: 'default' });

function token(overrides: Partial<TokenView>): TokenView {
  return {
    id: 1,
    user_id: 3,
    name: 'main',
    key: 'sk-abcd****wxyz',
    status: 1,
    created_time: 1_700_000_000,
    accessed_time: 1_700_000_000,
    expired_time: -1,
    remain_quota: 500_000,
    unlimited_quota: false,
    used_quota: 250_000,
    model_limits_enabled: false,
    model_limits: '',
    allow_ips: '',
    deny_ips: '',
    group: '',
    rate_limits: {},
    rate_limit_message: '',
    drawing_modes: [],
    ...overrides,
  };
}

const page = (items: TokenView[], total = items.length) => ({ items, total, page: 1, page_size: 10 });
const row = (name: string) => screen.getByText(name).closest('tr') as HTMLElement;
const button = (container: HTMLElement, name: RegExp) => within(container).getByRole('button', { name });

// Antd forms and tables render slowly in jsdom when the machine is busy: role queries skip the costly
// visibility check, and queries get room to wait
// (no real timers are involved, so a passing run takes no longer).
configure({ asyncUtilTimeout: 10_000, defaultHidden: true });
jest.setTimeout(90_000);

const fake = setupFakeApi();
let clipboard: jest.Mock;
beforeEach(() => {
  clipboard = stubClipboard();
});
afterEach(() => {
  jest.restoreAllMocks();
});

describe('token list', () => {
  it('loads the first page with the saved page size and shows each status, the group and quota labels', async () => {
    fake.ok(
      'GET',
      '/api/token/',
      page([
        token({ id: 1, name: 'plain' }),
        token({ id: 2, name: 'limited', model_limits_enabled: true, model_limits: 'gpt-4o', group: 'vip' }),
        token({ id: 3, name: 'off', status: 2, unlimited_quota: true }),
        token({ id: 4, name: 'old', status: 3, expired_time: now - 60 }),
        token({ id: 5, name: 'empty', status: 4, remain_quota: 0 }),
      ]),
    );
    renderPage(<TokensPage />, { user });
    expect(await screen.findByText('plain')).toBeInTheDocument();
    expect(within(row('plain')).getByText('已启用')).toBeInTheDocument();
    expect(within(row('plain')).getByText('用户分组')).toBeInTheDocument();
    expect(within(row('plain')).getByText('永不过期')).toBeInTheDocument();
    expect(within(row('plain')).getByText('$0.50')).toBeInTheDocument(); // used 250000
    expect(within(row('plain')).getByText('$1.00')).toBeInTheDocument(); // remaining 500000
    expect(within(row('limited')).getByText('限制模型')).toBeInTheDocument();
    expect(within(row('limited')).getByText('vip')).toBeInTheDocument();
    expect(within(row('off')).getByText('已禁用')).toBeInTheDocument();
    expect(within(row('off')).getByText('无限额度')).toBeInTheDocument();
    expect(within(row('old')).getByText('已过期')).toBeInTheDocument();
    expect(within(row('empty')).getByText('已耗尽')).toBeInTheDocument();
    expect(screen.getByText('令牌无法精确控制使用额度，只允许自用，请勿直接将令牌分发给他人。')).toBeInTheDocument();
    const call = fake.callsTo('GET', '/api/token/')[0]!;
    expect(Object.fromEntries(call.query)).toEqual({ p: '1', size: '10' });
    // Masked keys only: nothing was revealed just by listing.
    expect(fake.calls.filter((c) => c.method === 'POST')).toHaveLength(0);
  });

  it('searches by name and by key through /api/token/search', async () => {
    fake.ok('GET', '/api/token/', page([token({ name: 'first' })]));
    fake.ok('GET', '/api/token/search', page([token({ id: 9, name: 'found' })]));
    renderPage(<TokensPage />, { user });
    await screen.findByText('first');
    await userEvent.type(screen.getByPlaceholderText('搜索令牌的名称 ...'), ' prod ');
    await userEvent.type(screen.getByPlaceholderText('搜索令牌的 key ...'), 'sk-abcd');
    await userEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    expect(await screen.findByText('found')).toBeInTheDocument();
    expect(Object.fromEntries(fake.callsTo('GET', '/api/token/search')[0]!.query)).toEqual({ keyword: 'prod', token: 'sk-abcd', p: '1', size: '10' });
  });

  it('saves a new page size and asks for it', async () => {
    fake.ok('GET', '/api/token/', page([token({ name: 'one' })], 45));
    const { store } = renderPage(<TokensPage />, { user });
    await screen.findByText('one');
    await userEvent.click(screen.getByText('10 条/页'));
    await userEvent.click(await screen.findByText('20 条/页'));
    await waitFor(() => expect(fake.callsTo('GET', '/api/token/').some((c) => c.query.get('size') === '20')).toBe(true));
    expect(store.getState().preferences.pageSize).toBe(20);
    expect(localStorage.getItem('page-size')).toBe('20');
  });
});

describe('copying keys', () => {
  it('needs a selection', async () => {
    fake.ok('GET', '/api/token/', page([token({ name: 'one' })]));
    renderPage(<TokensPage />, { user });
    await screen.findByText('one');
    await userEvent.click(screen.getByRole('button', { name: /复制所选令牌/ }));
    expect(await screen.findByText('请至少选择一个令牌！')).toBeInTheDocument();
    expect(fake.calls.filter((c) => c.method === 'POST')).toHaveLength(0);
  });

  it('copies the whole keys of the selected tokens, one per line, revealed in one batch call', async () => {
    fake.ok('GET', '/api/token/', page([token({ id: 1, name: 'one' }), token({ id: 2, name: 'two' }), token({ id: 3, name: 'three' })]));
    fake.ok('POST', '/api/token/keys', [
      { id: 1, key: 'sk-111' },
      { id: 3, key: 'sk-333' },
    ]);
    renderPage(<TokensPage />, { user });
    await screen.findByText('one');
    await userEvent.click(within(row('one')).getByRole('checkbox'));
    await userEvent.click(within(row('three')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: /复制所选令牌/ }));
    expect(await screen.findByText('已复制 2 个令牌')).toBeInTheDocument();
    expect(clipboard).toHaveBeenCalledWith('sk-111\nsk-333');
    expect(fake.calls.filter((c) => c.method === 'POST').map((c) => [c.path, c.body])).toEqual([['/api/token/keys', { ids: [1, 3] }]]);
  });

  it('keeps the selection across pages and asks only for the keys not revealed yet', async () => {
    fake.on('GET', '/api/token/', (call) => ({
      body: {
        success: true,
        message: '',
        data:
          call.query.get('p') === '2'
            ? { ...page([token({ id: 11, name: 'eleven' })], 11), page: 2 }
            : page([token({ id: 1, name: 'one' }), token({ id: 2, name: 'two' })], 11),
      },
    }));
    fake.ok('POST', '/api/token/2/key', { key: 'sk-222' });
    fake.ok('POST', '/api/token/keys', [{ id: 11, key: 'sk-eleven' }]);
    renderPage(<TokensPage />, { user });
    await screen.findByText('one');
    await userEvent.click(button(row('two'), /复\s*制/)); // reveals 2 on its own
    await waitFor(() => expect(clipboard).toHaveBeenCalledWith('sk-222'));
    await userEvent.click(within(row('two')).getByRole('checkbox'));
    await userEvent.click(screen.getByTitle('2'));
    await screen.findByText('eleven');
    await userEvent.click(within(row('eleven')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: /复制所选令牌/ }));
    expect(await screen.findByText('已复制 2 个令牌')).toBeInTheDocument();
    expect(clipboard).toHaveBeenLastCalledWith('sk-222\nsk-eleven');
    expect(fake.callsTo('POST', '/api/token/keys').map((c) => c.body)).toEqual([{ ids: [11] }]);
    expect(fake.callsTo('POST', '/api/token/2/key')).toHaveLength(1);
  });

  it('copies nothing when the server refuses the batch', async () => {
    fake.ok('GET', '/api/token/', page([token({ id: 1, name: 'one' })]));
    fake.status('POST', '/api/token/keys', 429);
    renderPage(<TokensPage />, { user });
    await screen.findByText('one');
    await userEvent.click(within(row('one')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: /复制所选令牌/ }));
    expect(await screen.findByText('请求次数过多，请稍后再试！')).toBeInTheDocument();
    expect(clipboard).not.toHaveBeenCalled();
    expect(screen.queryByText(/已复制/)).not.toBeInTheDocument();
  });

  it('asks for a selection larger than a page in batches of a page', async () => {
    const ids = Array.from({ length: 150 }, (_, index) => index + 1);
    fake.on('POST', '/api/token/keys', (call) => ({
      body: { success: true, message: '', data: (call.body.ids as number[]).map((id) => ({ id, key: `sk-${id}` })) },
    }));
    let copied: string[] | null = null;
    function Probe() {
      const { fullKeys } = useTokenKeys();
      return (
        <button
          type="button"
          onClick={() =>
            void fullKeys(ids).then((keys) => {
              copied = keys;
            })
          }
        >
          reveal
        </button>
      );
    }
    renderPage(<Probe />, { user });
    await userEvent.click(screen.getByRole('button', { name: 'reveal' }));
    await waitFor(() => expect(copied).toEqual(ids.map((id) => `sk-${id}`)));
    expect(fake.callsTo('POST', '/api/token/keys').map((c) => c.body.ids)).toEqual([ids.slice(0, 100), ids.slice(100)]);
  });

  it('copies one key and reveals it once for view, copy and chat', async () => {
    fake.ok('GET', '/api/token/', page([token({ id: 7, name: 'mine' })]));
    fake.ok('POST', '/api/token/7/key', { key: 'sk-WHOLEKEY' });
    renderPage(<TokensPage />, { user });
    await screen.findByText('mine');
    await userEvent.click(button(row('mine'), /查\s*看/));
    expect(await screen.findByText('sk-WHOLEKEY')).toBeInTheDocument();
    await userEvent.click(button(row('mine'), /复\s*制/));
    expect(await screen.findByText('已复制到剪贴板！')).toBeInTheDocument();
    expect(clipboard).toHaveBeenCalledWith('sk-WHOLEKEY');
    expect(fake.callsTo('POST', '/api/token/7/key')).toHaveLength(1);
  });

  it('shows the server refusal of a reveal', async () => {
    fake.ok('GET', '/api/token/', page([token({ id: 7, name: 'mine' })]));
    fake.fail('POST', '/api/token/7/key', 'key: this key can no longer be shown; create a new token');
    renderPage(<TokensPage />, { user });
    await screen.findByText('mine');
    await userEvent.click(button(row('mine'), /复\s*制/));
    expect(await screen.findByText('key: this key can no longer be shown; create a new token')).toBeInTheDocument();
    expect(screen.queryByText('已复制到剪贴板！')).not.toBeInTheDocument();
  });
});

describe('enable and disable', () => {
  it('refuses to enable an expired or exhausted token and says why, without calling the server', async () => {
    fake.ok(
      'GET',
      '/api/token/',
      page([
        token({ id: 1, name: 'old', status: 3, expired_time: now - 60 }),
        token({ id: 2, name: 'empty', status: 4, remain_quota: 0 }),
        // Disabled shows first, but its expiry has passed too: still refused.
        token({ id: 3, name: 'off-old', status: 2, expired_time: now - 60 }),
      ]),
    );
    renderPage(<TokensPage />, { user });
    await screen.findByText('old');
    await userEvent.click(button(row('old'), /启\s*用/));
    expect(await screen.findByText('令牌已过期，无法启用。请先修改过期时间，或设为永不过期。')).toBeInTheDocument();
    await userEvent.click(button(row('empty'), /启\s*用/));
    expect(await screen.findByText('令牌额度已用尽，无法启用。请先增加剩余额度，或设为无限额度。')).toBeInTheDocument();
    await userEvent.click(button(row('off-old'), /启\s*用/));
    await waitFor(() => expect(screen.getAllByText('令牌已过期，无法启用。请先修改过期时间，或设为永不过期。').length).toBeGreaterThan(0));
    expect(fake.callsTo('PUT', '/api/token/')).toHaveLength(0);
  });

  it('disables and enables with status_only and shows the new state', async () => {
    fake.ok('GET', '/api/token/', page([token({ id: 1, name: 'on' }), token({ id: 2, name: 'off', status: 2 })]));
    fake.on('PUT', '/api/token/', (call) => ({
      body: { success: true, message: '', data: token({ id: call.body.id, name: call.body.id === 1 ? 'on' : 'off', status: call.body.status }) },
    }));
    renderPage(<TokensPage />, { user });
    await screen.findByText('on');
    await userEvent.click(button(row('on'), /禁\s*用/));
    await waitFor(() => expect(within(row('on')).getByText('已禁用')).toBeInTheDocument());
    await userEvent.click(button(row('off'), /启\s*用/));
    await waitFor(() => expect(within(row('off')).getByText('已启用')).toBeInTheDocument());
    const calls = fake.callsTo('PUT', '/api/token/');
    expect(calls.map((c) => [c.query.get('status_only'), c.body])).toEqual([
      ['true', { id: 1, status: 2 }],
      ['true', { id: 2, status: 1 }],
    ]);
  });

  it('puts the status back when the server refuses', async () => {
    fake.ok('GET', '/api/token/', page([token({ id: 1, name: 'on' })]));
    fake.fail('PUT', '/api/token/', 'token not found');
    renderPage(<TokensPage />, { user });
    await screen.findByText('on');
    await userEvent.click(button(row('on'), /禁\s*用/));
    expect(await screen.findByText('token not found')).toBeInTheDocument();
    expect(within(row('on')).getByText('已启用')).toBeInTheDocument();
  });
});

describe('row actions', () => {
  it('opens a chat client with the whole key and the encoded server address filled in', async () => {
    const open = jest.spyOn(window, 'open').mockImplementation(() => null);
    fake.ok('GET', '/api/token/', page([token({ id: 4, name: 'chatty' })]));
    fake.ok('POST', '/api/token/4/key', { key: 'sk-FULLKEY' });
    renderPage(<TokensPage />, {
      user,
      status: {
        server_address: 'https://gw.example.com',
        chats: [{ NextChat: 'https://chat.example/#/?settings={"key":"{key}","url":"{address}"}' }, { AMA: 'ama://set-api-key?server={address}&key={key}' }],
      },
    });
    await screen.findByText('chatty');
    await userEvent.click(button(row('chatty'), /聊\s*天/));
    await userEvent.click(await screen.findByText('AMA'));
    await waitFor(() => expect(open).toHaveBeenCalled());
    expect(open.mock.calls[0]![0]).toBe('ama://set-api-key?server=https%3A%2F%2Fgw.example.com&key=sk-FULLKEY');
    expect(open.mock.calls[0]![1]).toBe('_blank');
  });

  it('uses the page origin when the server address is not set, and asks for chat links when none exist', async () => {
    const open = jest.spyOn(window, 'open').mockImplementation(() => null);
    fake.ok('GET', '/api/token/', page([token({ id: 4, name: 'chatty' })]));
    fake.ok('POST', '/api/token/4/key', { key: 'sk-FULLKEY' });
    const view = renderPage(<TokensPage />, { user, status: { server_address: '', chats: [{ OpenCat: 'opencat://team/join?domain={address}&token={key}' }] } });
    await screen.findByText('chatty');
    await userEvent.click(button(row('chatty'), /聊\s*天/));
    await userEvent.click(await screen.findByText('OpenCat'));
    await waitFor(() =>
      expect(open).toHaveBeenCalledWith(
        `opencat://team/join?domain=${encodeURIComponent(window.location.origin)}&token=sk-FULLKEY`,
        '_blank',
        'noopener,noreferrer',
      ),
    );
    view.unmount();

    renderPage(<TokensPage />, { user, status: { chats: [] } });
    await screen.findByText('chatty');
    await userEvent.click(button(row('chatty'), /聊\s*天/));
    expect(await screen.findByText('请联系管理员配置聊天链接')).toBeInTheDocument();
  });

  it('deletes after confirmation', async () => {
    fake.ok('GET', '/api/token/', page([token({ id: 5, name: 'gone' })]));
    fake.ok('DELETE', '/api/token/5/');
    renderPage(<TokensPage />, { user });
    await screen.findByText('gone');
    await userEvent.click(button(row('gone'), /删\s*除/));
    const confirm = await screen.findByText('确定要删除令牌 gone 吗？');
    expect(fake.callsTo('DELETE', '/api/token/5/')).toHaveLength(0);
    const popover = confirm.closest('.ant-popover') as HTMLElement;
    await userEvent.click(within(popover).getByRole('button', { name: /删\s*除/ }));
    expect(await screen.findByText('令牌已删除！')).toBeInTheDocument();
    expect(fake.callsTo('DELETE', '/api/token/5/')).toHaveLength(1);
    // The list is asked again after the deletion.
    await waitFor(() => expect(fake.callsTo('GET', '/api/token/').length).toBeGreaterThan(1));
  });
});
