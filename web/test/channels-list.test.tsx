import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import { ChannelsPage } from '../src/features/channels/ChannelsPage';
import { admin, buttonNamed, findButton, makeChannel, page } from './channels-fixtures';
import { renderPage, setupFakeApi } from './render';

const userEvent = userEventBase.setup({ delay: null });
const fake = setupFakeApi();
beforeEach(() => {
  fake.ok('GET', '/api/group/', ['default', 'vip']);
});

const open = () => renderPage(<ChannelsPage />, { route: '/channel', user: admin });
/** The table row that shows `text`. */
const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;
/** The combobox input of the antd select around (or inside) `element`. */
const comboboxOf = (element: Element) => (element.closest('.ant-select') ?? element).querySelector('[role="combobox"]') as HTMLElement;
const lastList = () => fake.callsTo('GET', '/api/channel/').at(-1)!;

describe('channel list', () => {
  it('loads the first page with the saved page size, sorted by priority, and shows the rows', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 3, name: 'azure-east', type: 3, group: 'default,vip' })]));
    open();
    expect(await screen.findByText('azure-east')).toBeInTheDocument();
    const query = Object.fromEntries(lastList().query);
    expect(query).toEqual({ p: '1', page_size: '10', id_sort: 'false', tag_mode: 'false' });
    const row = rowOf('azure-east');
    expect(within(row).getByText('Azure OpenAI')).toBeInTheDocument();
    expect(within(row).getByText('vip')).toBeInTheDocument();
    expect(within(row).getByText('已启用')).toBeInTheDocument();
  });

  it('searches by keyword, model and group', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel()]));
    fake.ok('GET', '/api/channel/search', page([makeChannel({ id: 9, name: 'found-it' })]));
    open();
    await screen.findByText('openai-main');
    await userEvent.type(screen.getByPlaceholderText('搜索渠道的 ID，名称和密钥 ...'), ' sk-abc ');
    await userEvent.type(screen.getByPlaceholderText('模型关键字'), 'gpt-4');
    fireEvent.mouseDown(comboboxOf(screen.queryByText('选择分组') ?? screen.getByPlaceholderText('选择分组')));
    await userEvent.click(await screen.findByTitle('vip'));
    await userEvent.click(buttonNamed('查询'));
    expect(await screen.findByText('found-it')).toBeInTheDocument();
    const query = Object.fromEntries(fake.callsTo('GET', '/api/channel/search').at(-1)!.query);
    expect(query).toEqual({ p: '1', page_size: '10', id_sort: 'false', tag_mode: 'false', keyword: 'sk-abc', model: 'gpt-4', group: 'vip' });
  });

  it('saves the id-sort switch in browser storage and sorts by id', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel()]));
    open();
    await screen.findByText('openai-main');
    await userEvent.click(screen.getByLabelText('使用ID排序'));
    await waitFor(() => expect(lastList().query.get('id_sort')).toBe('true'));
    expect(localStorage.getItem('id-sort')).toBe('true');
  });

  it('starts with the saved id-sort choice', async () => {
    localStorage.setItem('id-sort', 'true');
    fake.ok('GET', '/api/channel/', page([makeChannel()]));
    open();
    await screen.findByText('openai-main');
    expect(fake.callsTo('GET', '/api/channel/')[0]!.query.get('id_sort')).toBe('true');
    expect(screen.getByLabelText('使用ID排序')).toBeChecked();
  });

  it('colours response times by the 1/3/5 s bands', async () => {
    fake.ok(
      'GET',
      '/api/channel/',
      page([
        makeChannel({ id: 1, name: 'never', response_time: 0 }),
        makeChannel({ id: 2, name: 'fast', response_time: 1000 }),
        makeChannel({ id: 3, name: 'ok', response_time: 2500 }),
        makeChannel({ id: 4, name: 'slow', response_time: 5000 }),
        makeChannel({ id: 5, name: 'slower', response_time: 5001 }),
      ]),
    );
    open();
    await screen.findByText('never');
    const band = (name: string) => within(rowOf(name)).getByText(/秒|未测试/);
    expect(band('never')).toHaveTextContent('未测试');
    expect(band('never')).toHaveAttribute('data-band', 'default');
    expect(band('fast')).toHaveTextContent('1.00 秒');
    expect(band('fast')).toHaveAttribute('data-band', 'green');
    expect(band('ok')).toHaveAttribute('data-band', 'lime');
    expect(band('slow')).toHaveAttribute('data-band', 'yellow');
    expect(band('slower')).toHaveTextContent('5.00 秒');
    expect(band('slower')).toHaveAttribute('data-band', 'red');
  });

  it('explains an automatic disable with its reason and time, and greys disabled rows', async () => {
    const time = 1_700_000_000;
    fake.ok(
      'GET',
      '/api/channel/',
      page([
        makeChannel({ id: 1, name: 'broken', status: 3, other_info: JSON.stringify({ status_reason: 'invalid api key', status_time: time }) }),
        makeChannel({ id: 2, name: 'paused', status: 2 }),
        makeChannel({ id: 3, name: 'fine', status: 1 }),
      ]),
    );
    open();
    await screen.findByText('broken');
    expect(rowOf('broken')).toHaveClass('channel-row-disabled');
    expect(rowOf('paused')).toHaveClass('channel-row-disabled');
    expect(rowOf('fine')).not.toHaveClass('channel-row-disabled');
    expect(within(rowOf('paused')).getByText('已禁用')).toBeInTheDocument();
    await userEvent.hover(within(rowOf('broken')).getByText('自动禁用'));
    expect(await screen.findByText('原因：invalid api key')).toBeInTheDocument();
    const shown = new Date(time * 1000);
    const pad = (value: number) => String(value).padStart(2, '0');
    expect(
      screen.getByText(
        `时间：${shown.getFullYear()}-${pad(shown.getMonth() + 1)}-${pad(shown.getDate())} ${pad(shown.getHours())}:${pad(shown.getMinutes())}:${pad(shown.getSeconds())}`,
      ),
    ).toBeInTheDocument();
  });
  it('speaks English when chosen', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 1, name: 'first', type: 15 })]));
    renderPage(<ChannelsPage />, { route: '/channel', user: admin, locale: 'en-US' });
    expect(await screen.findByText('first')).toBeInTheDocument();
    expect(within(rowOf('first')).getByText('Not tested')).toBeInTheDocument();
    expect(within(rowOf('first')).getByText('Baidu Wenxin Qianfan')).toBeInTheDocument();
    expect(buttonNamed('Test all channels')).toBeInTheDocument();
  });
});

describe('inline priority and weight', () => {
  beforeEach(() => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 7, name: 'edit-me', priority: 5, weight: 2 })]));
    fake.on('PUT', '/api/channel/', (call) => ({ body: { success: true, message: '', data: makeChannel({ id: 7, ...call.body }) } }));
  });

  it('saves the priority with a floor of -999', async () => {
    open();
    await screen.findByText('edit-me');
    const priority = within(rowOf('edit-me')).getByLabelText('优先级');
    await userEvent.clear(priority);
    await userEvent.type(priority, '-5000{Enter}');
    await waitFor(() => expect(fake.callsTo('PUT', '/api/channel/').map((call) => call.body)).toEqual([{ id: 7, priority: -999 }]));
    expect(priority).toHaveValue('-999');
    expect(await screen.findByText('更新成功！')).toBeInTheDocument();
  });

  it('clamps a negative weight to 0', async () => {
    open();
    await screen.findByText('edit-me');
    const weight = within(rowOf('edit-me')).getByLabelText('权重');
    await userEvent.clear(weight);
    await userEvent.type(weight, '-3');
    fireEvent.blur(weight);
    await waitFor(() => expect(fake.callsTo('PUT', '/api/channel/').map((call) => call.body)).toEqual([{ id: 7, weight: 0 }]));
  });

  it('ignores an empty input and shows the stored value again', async () => {
    open();
    await screen.findByText('edit-me');
    const weight = within(rowOf('edit-me')).getByLabelText('权重');
    await userEvent.clear(weight);
    fireEvent.blur(weight);
    await waitFor(() => expect(weight).toHaveValue('2'));
    // The next edit is the only save: had the empty input been sent, its PUT would have come first.
    await userEvent.type(weight, '{Backspace}3');
    fireEvent.blur(weight);
    await waitFor(() => expect(fake.callsTo('PUT', '/api/channel/').map((call) => call.body)).toEqual([{ id: 7, weight: 3 }]));
  });
});

describe('row actions', () => {
  it('disables at once and puts the status back when the server refuses', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 4, name: 'toggle-me' })]));
    let refuse: () => void = () => undefined;
    fake.on(
      'PUT',
      '/api/channel/',
      () =>
        new Promise((resolve) => {
          refuse = () => resolve({ body: { success: false, message: 'database is locked' } });
        }),
    );
    open();
    await screen.findByText('toggle-me');
    await userEvent.click(buttonNamed('禁用', rowOf('toggle-me')));
    expect(await within(rowOf('toggle-me')).findByText('已禁用')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/')[0]!.body).toEqual({ id: 4, status: 2 });
    act(() => refuse());
    expect(await within(rowOf('toggle-me')).findByText('已启用')).toBeInTheDocument();
    expect(await screen.findByText('database is locked')).toBeInTheDocument();
  });

  it('enables a disabled channel and keeps it enabled', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 4, name: 'toggle-me', status: 2 })]));
    fake.ok('PUT', '/api/channel/', makeChannel({ id: 4, name: 'toggle-me', status: 1 }));
    open();
    await screen.findByText('toggle-me');
    await userEvent.click(buttonNamed('启用', rowOf('toggle-me')));
    expect(await screen.findByText('操作成功完成！')).toBeInTheDocument();
    expect(within(rowOf('toggle-me')).getByText('已启用')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/')[0]!.body).toEqual({ id: 4, status: 1 });
  });

  it('tests with a chosen model and shows the time', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 5, name: 'probe', models: 'gpt-4o,gpt-4o-mini' })]));
    fake.on('POST', '/api/channel/test/5', () => ({ body: { success: true, message: '', time: 1.5, data: { time: 1.5 } } }));
    open();
    await screen.findByText('probe');
    await userEvent.click(within(rowOf('probe')).getByLabelText('选择测试模型'));
    await userEvent.click(await screen.findByText('gpt-4o-mini'));
    expect(await screen.findByText('通道 probe 测试成功，耗时 1.50 秒。')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/test/5')[0]!.query.get('model')).toBe('gpt-4o-mini');
    expect(within(rowOf('probe')).getByText('1.50 秒')).toHaveAttribute('data-band', 'lime');
  });

  it('tests with the default model from the button and from the response time', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 5, name: 'probe' })]));
    fake.fail('POST', '/api/channel/test/5', 'upstream answered 401');
    open();
    await screen.findByText('probe');
    await userEvent.click(buttonNamed('测试', rowOf('probe')));
    expect(await screen.findByText('upstream answered 401')).toBeInTheDocument();
    await userEvent.click(within(rowOf('probe')).getByText('未测试'));
    await waitFor(() => expect(fake.callsTo('POST', '/api/channel/test/5')).toHaveLength(2));
    expect(fake.callsTo('POST', '/api/channel/test/5').every((call) => !call.query.has('model'))).toBe(true);
  });

  it('updates the balance of a row', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 6, name: 'wallet', balance: 1 })]));
    fake.on('POST', '/api/channel/update_balance/6/', () => ({ body: { success: true, message: '', balance: 12.5, data: { balance: 12.5 } } }));
    open();
    await screen.findByText('wallet');
    await userEvent.click(within(rowOf('wallet')).getByText('$1.00'));
    expect(await screen.findByText('通道 wallet 余额更新成功！')).toBeInTheDocument();
    expect(within(rowOf('wallet')).getByText('$12.50')).toBeInTheDocument();
  });

  it('copies a channel', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 8, name: 'source' })]));
    fake.ok('POST', '/api/channel/copy/8', { id: 9 });
    open();
    await screen.findByText('source');
    await userEvent.click(buttonNamed('复制', rowOf('source')));
    await userEvent.click(await findButton('确定'));
    expect(await screen.findByText('渠道复制成功')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/copy/8')[0]!.query.get('reset_balance')).toBe('true');
    await waitFor(() => expect(fake.callsTo('GET', '/api/channel/')).toHaveLength(2));
  });

  it('says why a copy failed', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 8, name: 'source' })]));
    fake.status('POST', '/api/channel/copy/8', 404, { success: false, message: 'channel not found' });
    open();
    await screen.findByText('source');
    await userEvent.click(buttonNamed('复制', rowOf('source')));
    await userEvent.click(await findButton('确定'));
    expect(await screen.findByText('渠道复制失败: 渠道未找到，请刷新页面后重试。')).toBeInTheDocument();
  });

  it('deletes a row after confirmation', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 2, name: 'old' })]));
    fake.ok('DELETE', '/api/channel/2/');
    open();
    await screen.findByText('old');
    await userEvent.click(buttonNamed('删除', rowOf('old')));
    expect(await screen.findByText('确定是否要删除此渠道？')).toBeInTheDocument();
    await userEvent.click(buttonNamed('确定'));
    expect(await screen.findByText('删除成功')).toBeInTheDocument();
    expect(fake.callsTo('DELETE', '/api/channel/2/')).toHaveLength(1);
  });
});

describe('table actions', () => {
  beforeEach(() => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 1, name: 'first' }), makeChannel({ id: 2, name: 'second' })], 2));
  });

  it('tests all channels in the background', async () => {
    fake.ok('POST', '/api/channel/test', null, 'testing all channels in the background; refresh to see the results');
    open();
    await screen.findByText('first');
    await userEvent.click(buttonNamed('测试所有通道'));
    expect(await screen.findByText('已成功开始测试所有通道，请刷新页面查看结果。')).toBeInTheDocument();
  });

  it('updates the balances of all enabled channels', async () => {
    fake.ok('POST', '/api/channel/update_balance', null);
    open();
    await screen.findByText('first');
    await userEvent.click(buttonNamed('更新所有已启用通道余额'));
    expect(await screen.findByText('已开始更新所有已启用通道余额，请稍后刷新页面查看结果。')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/update_balance')).toHaveLength(1);
  });

  it('deletes the disabled channels and says how many', async () => {
    fake.ok('DELETE', '/api/channel/disabled', 3);
    open();
    await screen.findByText('first');
    await userEvent.click(buttonNamed('删除禁用通道'));
    expect(await screen.findAllByText('确定是否要删除禁用通道？')).not.toHaveLength(0);
    await userEvent.click(buttonNamed('确定'));
    expect(await screen.findByText('已删除所有禁用渠道，共计 3 个')).toBeInTheDocument();
    await waitFor(() => expect(fake.callsTo('GET', '/api/channel/')).toHaveLength(2));
  });

  it('repairs database consistency and says how many', async () => {
    fake.ok('POST', '/api/channel/fix', 2);
    open();
    await screen.findByText('first');
    await userEvent.click(buttonNamed('修复数据库一致性'));
    await userEvent.click(await findButton('确定'));
    expect(await screen.findByText('数据库一致性修复完成，共处理 2 个渠道')).toBeInTheDocument();
  });

  it('refreshes', async () => {
    open();
    await screen.findByText('first');
    await userEvent.click(buttonNamed('刷新'));
    await waitFor(() => expect(fake.callsTo('GET', '/api/channel/')).toHaveLength(2));
  });

  it('needs a selection to delete in batch, then deletes the selected ids', async () => {
    fake.ok('POST', '/api/channel/batch', 1);
    open();
    await screen.findByText('first');
    expect(screen.queryByText('删除所选通道')).not.toBeInTheDocument();
    await userEvent.click(screen.getByLabelText('开启批量操作'));
    await userEvent.click(buttonNamed('删除所选通道'));
    expect(await screen.findByText('请先选择要删除的通道！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/batch')).toHaveLength(0);
    await userEvent.click(rowOf('second').querySelector('input[type="checkbox"]')!);
    await userEvent.click(buttonNamed('删除所选通道'));
    await userEvent.click(await findButton('确定'));
    expect(await screen.findByText('已删除 1 个通道！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/batch')[0]!.body).toEqual({ ids: [2] });
  });

  it('opens the editor in a drawer to add a channel', async () => {
    fake.ok('GET', '/api/channel/models', []);
    fake.ok('GET', '/api/models', {});
    open();
    await screen.findByText('first');
    await userEvent.click(buttonNamed('添加渠道'));
    expect(await screen.findByText('创建新的渠道')).toBeInTheDocument();
    expect(screen.getByPlaceholderText('请为渠道命名')).toBeInTheDocument();
  });

  it('saves the page size preference and asks for that size', async () => {
    const { store } = open();
    await screen.findByText('first');
    fireEvent.mouseDown(comboboxOf(document.querySelector('.ant-pagination-options') as HTMLElement));
    await userEvent.click(await screen.findByTitle('20 条/页'));
    await waitFor(() => expect(lastList().query.get('page_size')).toBe('20'));
    expect(store.getState().preferences.pageSize).toBe(20);
    expect(localStorage.getItem('page-size')).toBe('20');
  });
});
