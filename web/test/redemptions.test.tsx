import { configure, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role, type RedemptionView } from '@aigw/contracts';
import { RedemptionsPage } from '../src/features/redemptions/RedemptionsPage';
import { makeUser, renderPage, setupFakeApi, stubClipboard } from './render';

const admin = makeUser({ id: 1, username: 'root', role: Role.Root });

function code(overrides: Partial<RedemptionView> = {}): RedemptionView {
  return {
    id: 1,
    user_id: 1,
    name: 'gift',
    key: '0123456789abcdef0123456789abcdef',
    status: 1,
    quota: 100_000,
    created_time: 1_700_000_000,
    redeemed_time: 0,
    used_user_id: 0,
    ...overrides,
  };
}

const page = (items: RedemptionView[]) => ({ items, total: items.length, page: 1, page_size: 10 });
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

describe('redemption list', () => {
  it('shows id, name, status, formatted quota and the redeemer (none when 0)', async () => {
    fake.ok(
      'GET',
      '/api/redemption/',
      page([
        code({ id: 11, name: 'fresh' }),
        code({ id: 12, name: 'paused', status: 2, quota: 5_000_000 }),
        code({ id: 13, name: 'spent', status: 3, used_user_id: 42 }),
      ]),
    );
    renderPage(<RedemptionsPage />, { user: admin });
    expect(await screen.findByText('fresh')).toBeInTheDocument();
    expect(within(row('fresh')).getByText('未使用')).toBeInTheDocument();
    expect(within(row('fresh')).getByText('$0.20')).toBeInTheDocument();
    expect(within(row('fresh')).getByText('无')).toBeInTheDocument();
    expect(within(row('paused')).getByText('已禁用')).toBeInTheDocument();
    expect(within(row('paused')).getByText('$10.00')).toBeInTheDocument();
    expect(within(row('spent')).getByText('已使用')).toBeInTheDocument();
    expect(within(row('spent')).getByText('42')).toBeInTheDocument();
    expect(Object.fromEntries(fake.callsTo('GET', '/api/redemption/')[0]!.query)).toEqual({ p: '1', page_size: '10' });
  });

  it('searches by id or name', async () => {
    fake.ok('GET', '/api/redemption/', page([code({ name: 'first' })]));
    fake.ok('GET', '/api/redemption/search', page([code({ id: 2, name: 'found' })]));
    renderPage(<RedemptionsPage />, { user: admin });
    await screen.findByText('first');
    await userEvent.type(screen.getByPlaceholderText('搜索兑换码的 ID 和名称 ...'), ' 2 {Enter}');
    expect(await screen.findByText('found')).toBeInTheDocument();
    expect(Object.fromEntries(fake.callsTo('GET', '/api/redemption/search')[0]!.query)).toEqual({ keyword: '2', p: '1', page_size: '10' });
  });

  it('copies the selected codes one per line, and needs a selection', async () => {
    fake.ok('GET', '/api/redemption/', page([code({ id: 1, name: 'a', key: 'aaa' }), code({ id: 2, name: 'b', key: 'bbb' })]));
    renderPage(<RedemptionsPage />, { user: admin });
    await screen.findByText('a');
    await userEvent.click(screen.getByRole('button', { name: /复制所选兑换码/ }));
    expect(await screen.findByText('请至少选择一个兑换码！')).toBeInTheDocument();
    expect(clipboard).not.toHaveBeenCalled();
    await userEvent.click(within(row('a')).getByRole('checkbox'));
    await userEvent.click(within(row('b')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: /复制所选兑换码/ }));
    expect(await screen.findByText('已复制 2 个兑换码')).toBeInTheDocument();
    expect(clipboard).toHaveBeenCalledWith('aaa\nbbb');
  });

  it('views and copies one code', async () => {
    fake.ok('GET', '/api/redemption/', page([code({ name: 'one', key: 'feedfacefeedfacefeedfacefeedface' })]));
    renderPage(<RedemptionsPage />, { user: admin });
    await screen.findByText('one');
    await userEvent.click(button(row('one'), /查\s*看/));
    expect(await screen.findByText('feedfacefeedfacefeedfacefeedface')).toBeInTheDocument();
    await userEvent.click(button(row('one'), /复\s*制/));
    expect(clipboard).toHaveBeenCalledWith('feedfacefeedfacefeedfacefeedface');
  });

  it('edits only unused codes and never switches a used one', async () => {
    fake.ok(
      'GET',
      '/api/redemption/',
      page([code({ id: 1, name: 'fresh' }), code({ id: 2, name: 'paused', status: 2 }), code({ id: 3, name: 'spent', status: 3, used_user_id: 9 })]),
    );
    renderPage(<RedemptionsPage />, { user: admin });
    await screen.findByText('fresh');
    expect(button(row('fresh'), /编\s*辑/)).toBeEnabled();
    expect(button(row('paused'), /编\s*辑/)).toBeDisabled();
    expect(button(row('spent'), /编\s*辑/)).toBeDisabled();
    expect(button(row('fresh'), /禁\s*用/)).toBeEnabled();
    expect(button(row('paused'), /启\s*用/)).toBeEnabled();
    expect(button(row('spent'), /启\s*用/)).toBeDisabled();
  });

  it('disables and enables with status_only, and undoes a refused switch', async () => {
    fake.ok('GET', '/api/redemption/', page([code({ id: 1, name: 'fresh' }), code({ id: 2, name: 'paused', status: 2 })]));
    fake.on('PUT', '/api/redemption/', (call) =>
      call.body.id === 2
        ? { body: { success: false, message: 'the redemption code has been used and cannot be enabled or disabled' } }
        : { body: { success: true, message: '', data: code({ id: 1, name: 'fresh', status: call.body.status }) } },
    );
    renderPage(<RedemptionsPage />, { user: admin });
    await screen.findByText('fresh');
    await userEvent.click(button(row('fresh'), /禁\s*用/));
    await waitFor(() => expect(within(row('fresh')).getByText('已禁用')).toBeInTheDocument());
    await userEvent.click(button(row('paused'), /启\s*用/));
    expect(await screen.findByText('the redemption code has been used and cannot be enabled or disabled')).toBeInTheDocument();
    expect(within(row('paused')).getByText('已禁用')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/redemption/').map((c) => [c.query.get('status_only'), c.body])).toEqual([
      ['true', { id: 1, status: 2 }],
      ['true', { id: 2, status: 1 }],
    ]);
  });

  it('deletes after confirmation', async () => {
    fake.ok('GET', '/api/redemption/', page([code({ id: 8, name: 'old' })]));
    fake.ok('DELETE', '/api/redemption/8/');
    renderPage(<RedemptionsPage />, { user: admin });
    await screen.findByText('old');
    await userEvent.click(button(row('old'), /删\s*除/));
    const popover = (await screen.findByText('确定要删除兑换码 old 吗？')).closest('.ant-popover') as HTMLElement;
    await userEvent.click(within(popover).getByRole('button', { name: /删\s*除/ }));
    expect(await screen.findByText('兑换码已删除！')).toBeInTheDocument();
    expect(fake.callsTo('DELETE', '/api/redemption/8/')).toHaveLength(1);
  });
});

describe('redemption form', () => {
  const posted = () => fake.callsTo('POST', '/api/redemption/');
  const submit = (drawer: HTMLElement) => userEvent.click(within(drawer).getByRole('button', { name: /提\s*交/ }));
  const field = (drawer: HTMLElement, label: string) => within(drawer).getByLabelText(label);

  async function openCreate() {
    fake.ok('GET', '/api/redemption/', page([]));
    renderPage(<RedemptionsPage />, { user: admin });
    await userEvent.click(await screen.findByRole('button', { name: /添加兑换码/ }));
    const drawer = await screen.findByRole('dialog');
    await within(drawer).findByLabelText('名称');
    return drawer;
  }

  it('checks the name length, the quota and the count bounds', async () => {
    fake.ok('POST', '/api/redemption/', ['k1']);
    const drawer = await openCreate();
    await userEvent.type(field(drawer, '名称'), 'x'.repeat(21));
    await userEvent.clear(field(drawer, '额度'));
    await userEvent.type(field(drawer, '额度'), '-1');
    await userEvent.clear(field(drawer, '生成数量'));
    await userEvent.type(field(drawer, '生成数量'), '0');
    await submit(drawer);
    expect(await within(drawer).findByText('名称长度应为 1 到 20 个字符')).toBeInTheDocument();
    expect(within(drawer).getByText('额度必须是非负整数')).toBeInTheDocument();
    expect(within(drawer).getByText('数量必须是大于 0 的整数')).toBeInTheDocument();
    await userEvent.clear(field(drawer, '生成数量'));
    await userEvent.type(field(drawer, '生成数量'), '101');
    expect(await within(drawer).findByText('一次最多生成 100 个兑换码')).toBeInTheDocument();
    await userEvent.clear(field(drawer, '额度'));
    await userEvent.type(field(drawer, '额度'), '12.5');
    expect(await within(drawer).findByText('额度必须是非负整数')).toBeInTheDocument();
    expect(posted()).toHaveLength(0);
  });

  it('names a blank batch after its quota, lists the codes and downloads them as <name>.txt', async () => {
    fake.ok('POST', '/api/redemption/', ['code-one', 'code-two', 'code-three']);
    const blobs: Blob[] = [];
    const clicks: Array<{ download: string; href: string }> = [];
    Object.assign(URL, { createObjectURL: jest.fn((blob: Blob) => (blobs.push(blob), 'blob:codes')), revokeObjectURL: jest.fn() });
    jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push({ download: this.download, href: this.getAttribute('href') ?? '' });
    });
    const drawer = await openCreate();
    // Defaults: 100000 quota ($0.20), one code.
    expect(field(drawer, '额度')).toHaveValue('100000');
    expect(within(drawer).getByText('等价金额：$0.20')).toBeInTheDocument();
    expect(field(drawer, '生成数量')).toHaveValue('1');
    await userEvent.clear(field(drawer, '生成数量'));
    await userEvent.type(field(drawer, '生成数量'), '3');
    await submit(drawer);
    const dialog = (await screen.findAllByText('兑换码创建成功，是否下载兑换码？'))[0]!.closest('.ant-modal') as HTMLElement;
    expect(posted()[0]!.body).toEqual({ name: '$0.20', quota: 100000, count: 3 });
    expect(within(dialog).getByRole('textbox')).toHaveValue('code-one\ncode-two\ncode-three');
    await userEvent.click(within(dialog).getByRole('button', { name: /下\s*载/ }));
    await waitFor(() => expect(clicks).toHaveLength(1));
    expect(clicks[0]).toEqual({ download: '$0.20.txt', href: 'blob:codes' });
    expect(blobs[0]!.type).toBe('text/plain;charset=utf-8');
    expect(await blobs[0]!.text()).toBe('code-one\ncode-two\ncode-three');
    expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:codes');
  });

  it('uses the given name for the batch and its file', async () => {
    fake.ok('POST', '/api/redemption/', ['only']);
    const clicks: string[] = [];
    Object.assign(URL, { createObjectURL: jest.fn(() => 'blob:x'), revokeObjectURL: jest.fn() });
    jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.download);
    });
    const drawer = await openCreate();
    await userEvent.type(field(drawer, '名称'), ' spring ');
    await userEvent.clear(field(drawer, '额度'));
    await userEvent.type(field(drawer, '额度'), '5000000');
    expect(within(drawer).getByText('等价金额：$10.00')).toBeInTheDocument();
    await submit(drawer);
    const dialog = (await screen.findAllByText('兑换码创建成功，是否下载兑换码？'))[0]!.closest('.ant-modal') as HTMLElement;
    expect(posted()[0]!.body).toEqual({ name: 'spring', quota: 5_000_000, count: 1 });
    await userEvent.click(within(dialog).getByRole('button', { name: /下\s*载/ }));
    await waitFor(() => expect(clicks).toEqual(['spring.txt']));
  });

  it('updates an unused code by id with its name and quota, without a count', async () => {
    fake.ok('GET', '/api/redemption/', page([code({ id: 7, name: 'gift' })]));
    fake.ok('GET', '/api/redemption/7', code({ id: 7, name: 'gift', quota: 250_000 }));
    fake.ok('PUT', '/api/redemption/', code({ id: 7, name: 'gift2' }));
    renderPage(<RedemptionsPage />, { user: admin });
    await screen.findByText('gift');
    await userEvent.click(button(row('gift'), /编\s*辑/));
    const drawer = await screen.findByRole('dialog');
    await waitFor(() => expect(field(drawer, '额度')).toHaveValue('250000'));
    expect(within(drawer).queryByLabelText('生成数量')).not.toBeInTheDocument();
    await userEvent.clear(field(drawer, '名称'));
    await userEvent.type(field(drawer, '名称'), 'gift2');
    await submit(drawer);
    expect(await screen.findByText('兑换码更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/redemption/')[0]!.body).toEqual({ id: 7, name: 'gift2', quota: 250_000 });
  });
});
