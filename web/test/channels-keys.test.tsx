import { screen, waitFor, within } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import type { ChannelKeyList } from '@aigw/contracts';
import { ChannelsPage } from '../src/features/channels/ChannelsPage';
import { admin, buttonNamed, makeChannel, page } from './channels-fixtures';
import { renderPage, setupFakeApi } from './render';

const userEvent = userEventBase.setup({ delay: null });
const fake = setupFakeApi();

const keyList = (statuses: number[]): ChannelKeyList => ({
  mode: 'polling',
  size: statuses.length,
  live: statuses.filter((status) => status === 1).length,
  keys: statuses.map((status, index) => ({
    index,
    masked: `sk-${index}****abcd`,
    status,
    reason: status === 3 ? 'status 401: invalid api key' : status === 2 ? 'disabled by an admin' : '',
    time: status === 1 ? 0 : 1_732_600_000,
  })),
});

/** The manage route answers the list as it is after each action. */
function serveKeys(initial: number[]) {
  let statuses = [...initial];
  fake.on('POST', '/api/channel/multi_key/manage', (call) => {
    const { action, key_index: index } = call.body as { action: string; key_index?: number };
    if (action === 'enable_key') statuses[index!] = 1;
    if (action === 'disable_key') statuses[index!] = 2;
    if (action === 'enable_all_keys') statuses = statuses.map(() => 1);
    if (action === 'delete_disabled_keys') statuses = statuses.filter((status) => status === 1);
    return { body: { success: true, message: '', data: keyList(statuses) } };
  });
}

const manageCalls = () => fake.callsTo('POST', '/api/channel/multi_key/manage').map((call) => call.body as Record<string, unknown>);

describe('the keys of a channel with many keys', () => {
  beforeEach(() => {
    fake.ok('GET', '/api/group/', ['default']);
  });

  it('shows how many keys are live in the row, and lists them masked with their states and reasons', async () => {
    fake.ok(
      'GET',
      '/api/channel/',
      page([makeChannel({ id: 4, name: 'pool', multi_key: { mode: 'polling', size: 3, live: 2 } }), makeChannel({ id: 5, name: 'single' })]),
    );
    serveKeys([1, 3, 1]);
    renderPage(<ChannelsPage />, { route: '/channel', user: admin });
    const row = (await screen.findByText('pool')).closest('tr')!;
    expect(within(screen.getByText('single').closest('tr')!).queryByRole('button', { name: /密钥/ })).toBeNull();
    await userEvent.click(within(row).getByRole('button', { name: '密钥 2/3' }));

    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('sk-1****abcd')).toBeInTheDocument();
    expect(within(dialog).getByText('2 / 3 个密钥可用，轮询')).toBeInTheDocument();
    const disabledRow = within(dialog).getByText('sk-1****abcd').closest('tr')!;
    expect(within(disabledRow).getByText('自动禁用')).toBeInTheDocument();
    expect(within(disabledRow).getByText(/status 401: invalid api key/)).toBeInTheDocument();
    expect(manageCalls()[0]).toEqual({ channel_id: 4, action: 'get_key_status' });
  });

  it('enables, disables and tests one key, and acts on all of them', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 4, name: 'pool', multi_key: { mode: 'polling', size: 3, live: 2 } })]));
    fake.ok('POST', '/api/channel/test/4', { time: 0.42 });
    serveKeys([1, 3, 1]);
    renderPage(<ChannelsPage />, { route: '/channel', user: admin });
    await userEvent.click(await screen.findByRole('button', { name: '密钥 2/3' }));
    const dialog = await screen.findByRole('dialog');
    const keyRow = async (index: number) => (await within(dialog).findByText(`sk-${index}****abcd`)).closest('tr')!;

    await userEvent.click(buttonNamed('启用', await keyRow(1)));
    await waitFor(() => expect(manageCalls()).toContainEqual({ channel_id: 4, action: 'enable_key', key_index: 1 }));
    expect(await within(dialog).findByText('3 / 3 个密钥可用，轮询')).toBeInTheDocument();

    await userEvent.click(buttonNamed('禁用', await keyRow(0)));
    await waitFor(() => expect(manageCalls()).toContainEqual({ channel_id: 4, action: 'disable_key', key_index: 0 }));
    await within(dialog).findByText('2 / 3 个密钥可用，轮询');

    await userEvent.click(buttonNamed('测试', await keyRow(2)));
    expect(await screen.findByText('密钥 #2 测试成功，耗时 0.42 秒。')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/test/4').at(-1)!.query.get('key_index')).toBe('2');

    await userEvent.click(buttonNamed('删除已禁用的密钥'));
    await userEvent.click(await screen.findByRole('button', { name: /确\s*定|OK/ }));
    await waitFor(() => expect(manageCalls()).toContainEqual({ channel_id: 4, action: 'delete_disabled_keys' }));
    expect(await within(dialog).findByText('2 / 2 个密钥可用，轮询')).toBeInTheDocument();
    expect(buttonNamed('启用全部密钥', dialog)).toBeDisabled();
  });

  it('never offers to disable the last live key', async () => {
    fake.ok('GET', '/api/channel/', page([makeChannel({ id: 4, name: 'pool', multi_key: { mode: 'random', size: 2, live: 1 } })]));
    serveKeys([2, 1]);
    renderPage(<ChannelsPage />, { route: '/channel', user: admin });
    await userEvent.click(await screen.findByRole('button', { name: '密钥 1/2' }));
    const dialog = await screen.findByRole('dialog');
    const live = (await within(dialog).findByText('sk-1****abcd')).closest('tr')!;
    expect(buttonNamed('禁用', live)).toBeDisabled();
  });
});
