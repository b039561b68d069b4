import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import { ChannelsPage } from '../src/features/channels/ChannelsPage';
import { admin, buttonNamed, findButton, makeChannel, makeTagRow, page } from './channels-fixtures';
import { renderPage, setupFakeApi } from './render';

const userEvent = userEventBase.setup({ delay: null });

const plain = [makeChannel({ id: 1, name: 'first' }), makeChannel({ id: 2, name: 'second' }), makeChannel({ id: 3, name: 'third' })];
const team = makeTagRow('team', [makeChannel({ id: 4, name: 'team-a', tag: 'team' }), makeChannel({ id: 5, name: 'team-b', tag: 'team', status: 2 })]);

const fake = setupFakeApi();
beforeEach(() => {
  fake.ok('GET', '/api/group/', ['default', 'vip']);
  fake.ok('GET', '/api/channel/models', [{ id: 'gpt-4o', channel_types: [1] }]);
  fake.on('GET', '/api/channel/', (call) => ({
    body: { success: true, message: '', data: call.query.get('tag_mode') === 'true' ? page([team, plain[0]]) : page(plain) },
  }));
});

const open = () => renderPage(<ChannelsPage />, { route: '/channel', user: admin });
const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;
const openTagMode = async () => {
  open();
  await screen.findByText('first');
  await userEvent.click(screen.getByLabelText('标签聚合模式'));
  await screen.findByText('team');
};
const openTagEditor = async () => {
  await openTagMode();
  await userEvent.click(buttonNamed('编辑', rowOf('team')));
  return screen.findByText('编辑标签：team');
};
const save = () => userEvent.click(buttonNamed('保存'));
const fieldOf = (label: string) => screen.getByText(label, { selector: 'label' }).closest('.ant-form-item') as HTMLElement;

describe('tag aggregate mode', () => {
  it('asks for tag rows and lists the tag channels under them', async () => {
    await openTagMode();
    expect(fake.callsTo('GET', '/api/channel/').at(-1)!.query.get('tag_mode')).toBe('true');
    const row = rowOf('team');
    expect(within(row).getByText('（2 个渠道）')).toBeInTheDocument();
    expect(within(row).getByText('1/2 已启用')).toBeInTheDocument();
    await userEvent.click(row.querySelector('.ant-table-row-expand-icon') as HTMLElement);
    expect(await screen.findByText('team-a')).toBeInTheDocument();
    expect(rowOf('team-b')).toHaveClass('channel-row-disabled');
  });

  it('enables and disables every channel of a tag', async () => {
    fake.ok('POST', '/api/channel/tag/enabled', 2);
    fake.ok('POST', '/api/channel/tag/disabled', 2);
    await openTagMode();
    await userEvent.click(buttonNamed('启用全部', rowOf('team')));
    await waitFor(() => expect(fake.callsTo('POST', '/api/channel/tag/enabled').map((call) => call.body)).toEqual([{ tag: 'team' }]));
    await userEvent.click(buttonNamed('禁用全部', rowOf('team')));
    await waitFor(() => expect(fake.callsTo('POST', '/api/channel/tag/disabled').map((call) => call.body)).toEqual([{ tag: 'team' }]));
  });

  it('edits the priority of a whole tag inline', async () => {
    fake.ok('PUT', '/api/channel/tag', 2);
    await openTagMode();
    const priority = within(rowOf('team')).getByLabelText('优先级');
    await userEvent.clear(priority);
    await userEvent.type(priority, '4{Enter}');
    fireEvent.blur(priority);
    await waitFor(() => expect(fake.callsTo('PUT', '/api/channel/tag').map((call) => call.body)).toEqual([{ tag: 'team', priority: 4 }]));
    expect(await screen.findByText('更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/tag')).toHaveLength(1);
  });
});

describe('batch set tag', () => {
  it('needs a selection', async () => {
    open();
    await screen.findByText('first');
    await userEvent.click(screen.getByLabelText('开启批量操作'));
    await userEvent.click(buttonNamed('批量设置标签'));
    expect(await screen.findByText('请先选择要设置标签的渠道！')).toBeInTheDocument();
    expect(screen.queryByText('已选择 0 个渠道')).not.toBeInTheDocument();
  });

  it('needs a tag, then tags the selected channels', async () => {
    fake.ok('POST', '/api/channel/batch/tag', 2);
    open();
    await screen.findByText('first');
    await userEvent.click(screen.getByLabelText('开启批量操作'));
    await userEvent.click(rowOf('first').querySelector('input[type="checkbox"]')!);
    await userEvent.click(rowOf('third').querySelector('input[type="checkbox"]')!);
    await userEvent.click(buttonNamed('批量设置标签'));
    expect(await screen.findByText('已选择 2 个渠道')).toBeInTheDocument();
    await save();
    expect(await screen.findByText('标签不能为空！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/batch/tag')).toHaveLength(0);
    await userEvent.type(screen.getByPlaceholderText('请输入新标签'), ' team ');
    await save();
    expect(await screen.findByText('已为 2 个渠道设置标签')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/batch/tag')[0]!.body).toEqual({ ids: [1, 3], tag: 'team' });
  });
});

describe('tag edit dialog', () => {
  it('says so when nothing changed', async () => {
    await openTagEditor();
    await save();
    expect(await screen.findByText('没有任何修改！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/tag')).toHaveLength(0);
  });

  it('checks the model mapping, the priority and the weight', async () => {
    await openTagEditor();
    fireEvent.change(fieldOf('模型重定向').querySelector('textarea')!, { target: { value: '{"a": ' } });
    await userEvent.type(fieldOf('优先级').querySelector('input')!, '1.5');
    await userEvent.type(fieldOf('权重').querySelector('input')!, '-1');
    await save();
    expect(await screen.findByText('模型映射必须是合法的 JSON 格式！')).toBeInTheDocument();
    expect(await screen.findByText('优先级必须是整数！')).toBeInTheDocument();
    expect(await screen.findByText('权重必须是非负整数！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/tag')).toHaveLength(0);
  });

  it('sends the tag and only the fields that were filled in', async () => {
    fake.ok('PUT', '/api/channel/tag', 2);
    await openTagEditor();
    const newTag = screen.getByDisplayValue('team');
    await userEvent.clear(newTag);
    await userEvent.type(newTag, 'team2');
    fireEvent.change(fieldOf('模型重定向').querySelector('textarea')!, { target: { value: '{"gpt-4o": "gpt-4o-2024-08-06"}' } });
    await userEvent.type(fieldOf('优先级').querySelector('input')!, '-3');
    await userEvent.type(fieldOf('权重').querySelector('input')!, '0');
    await save();
    expect(await screen.findByText('标签更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/tag')[0]!.body).toEqual({
      tag: 'team',
      new_tag: 'team2',
      model_mapping: '{"gpt-4o": "gpt-4o-2024-08-06"}',
      priority: -3,
      weight: 0,
    });
  });

  it('dissolves the tag when the new tag is emptied, after confirmation', async () => {
    fake.ok('PUT', '/api/channel/tag', 2);
    await openTagEditor();
    await userEvent.clear(screen.getByDisplayValue('team'));
    await save();
    expect(await screen.findByText('确定要解散标签吗？标签下的渠道会保留，只是不再属于该标签。')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/tag')).toHaveLength(0);
    await userEvent.click(await findButton('确定'));
    expect(await screen.findByText('标签更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/tag')[0]!.body).toEqual({ tag: 'team', new_tag: '' });
  });

  it('shows the server message when the edit is refused', async () => {
    fake.fail('PUT', '/api/channel/tag', 'group: at least one is required');
    await openTagEditor();
    await userEvent.type(fieldOf('权重').querySelector('input')!, '2');
    await save();
    expect(await screen.findByText('group: at least one is required')).toBeInTheDocument();
    expect(screen.getByText('编辑标签：team')).toBeInTheDocument();
  });
});
