import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEventBase from '@testing-library/user-event';
import { ChannelEditPage } from '../src/features/channels/ChannelEditPage';
import { admin, buttonNamed, makeChannel } from './channels-fixtures';
import { renderPage, setupFakeApi } from './render';

const userEvent = userEventBase.setup({ delay: null });
const fake = setupFakeApi();
beforeEach(() => {
  fake.ok('GET', '/api/group/', ['default', 'vip']);
  fake.ok('GET', '/api/channel/models', [
    { id: 'gpt-4o', channel_types: [1, 3] },
    { id: 'claude-3-5-haiku-20241022', channel_types: [14] },
  ]);
  fake.ok('GET', '/api/models', { 1: ['gpt-4o-mini'] });
});

const routes = [
  { path: '/channel/add', element: <ChannelEditPage /> },
  { path: '/channel/edit/:id', element: <ChannelEditPage /> },
  { path: '/channel', element: <p>channel list</p> },
];
const openAdd = () => renderPage(<ChannelEditPage />, { route: '/channel/add', routes, user: admin });
const openEdit = (id: number) => renderPage(<ChannelEditPage />, { route: `/channel/edit/${id}`, routes, user: admin });

const submit = () => userEvent.click(buttonNamed('提交'));
const fieldOf = (label: string) => screen.getByText(label, { selector: 'label' }).closest('.ant-form-item') as HTMLElement;
/** The chosen values of a multiple select, by their tags. */
const chosen = (label: string) => [...fieldOf(label).querySelectorAll('.ant-select-selection-item-content')].map((item) => item.textContent);
const addCustomModels = async (text: string) => {
  const input = screen.getByPlaceholderText('输入自定义模型名称，多个用英文逗号分隔');
  await userEvent.clear(input);
  await userEvent.type(input, text);
  await userEvent.click(buttonNamed('填入'));
};
const chooseType = async (search: string, option: string) => {
  const select = fieldOf('类型').querySelector('[role="combobox"]') as HTMLElement;
  fireEvent.mouseDown(select);
  await userEvent.type(select, search);
  const options = await screen.findAllByTitle(option);
  await userEvent.click(options.at(-1)!);
};

describe('channel form: create', () => {
  it('requires name, key, groups and models', async () => {
    openAdd();
    await screen.findByPlaceholderText('请为渠道命名');
    const groups = fieldOf('分组');
    await userEvent.click(within(groups).getByLabelText('close'));
    await submit();
    expect(await screen.findByText('请输入渠道名称')).toBeInTheDocument();
    expect(screen.getByText('请输入密钥')).toBeInTheDocument();
    expect(screen.getByText('请选择可以使用该渠道的分组', { selector: '.ant-form-item-explain-error' })).toBeInTheDocument();
    expect(screen.getByText('请至少选择一个模型！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/')).toHaveLength(0);
  });

  it('creates a channel with every field the server expects, then goes back to the list', async () => {
    fake.ok('POST', '/api/channel/', { ids: [11] });
    const { router } = openAdd();
    await userEvent.type(await screen.findByPlaceholderText('请为渠道命名'), '  main  ');
    await userEvent.type(screen.getByPlaceholderText('请输入渠道对应的鉴权密钥'), 'sk-one');
    await userEvent.type(screen.getByPlaceholderText('https://api.openai.com'), 'https://proxy.example.com/');
    await addCustomModels('my-model');
    const priority = fieldOf('渠道优先级').querySelector('input')!;
    await userEvent.clear(priority);
    await userEvent.type(priority, '7');
    await submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/channel'));
    expect(fake.callsTo('POST', '/api/channel/')[0]!.body).toEqual({
      type: 1,
      name: 'main',
      base_url: 'https://proxy.example.com',
      other: '',
      openai_organization: '',
      group: 'default',
      models: 'my-model',
      model_mapping: '',
      status_code_mapping: '',
      param_override: '',
      setting: '',
      test_model: '',
      auto_ban: 1,
      tag: '',
      priority: 7,
      weight: 0,
      allow_private_network: false,
      rate_limits: {},
      key: 'sk-one',
    });
    expect(await screen.findByText('渠道创建成功！')).toBeInTheDocument();
    // A channel not made yet has nothing counted.
    expect(fake.callsTo('GET', '/api/limits/use')).toHaveLength(0);
  });

  it('creates one channel per key line in batch mode', async () => {
    fake.ok('POST', '/api/channel/', { ids: [11, 12] });
    openAdd();
    await userEvent.type(await screen.findByPlaceholderText('请为渠道命名'), 'pool');
    await userEvent.click(screen.getByLabelText(/批量创建/));
    await userEvent.type(screen.getByPlaceholderText('请输入密钥，一行一个'), 'sk-a{Enter}sk-b');
    await addCustomModels('gpt-4o');
    await submit();
    expect(await screen.findByText('已批量创建 2 个渠道')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/')[0]!.body.key).toBe('sk-a\nsk-b');
  });

  it('creates one channel holding every key, picked in turn', async () => {
    fake.ok('POST', '/api/channel/', { ids: [11] });
    openAdd();
    await userEvent.type(await screen.findByPlaceholderText('请为渠道命名'), 'pool');
    await userEvent.click(screen.getByLabelText(/批量创建/));
    await userEvent.click(screen.getByLabelText('一个渠道聚合全部密钥，轮询使用'));
    await userEvent.type(screen.getByPlaceholderText('请输入密钥，一行一个'), 'sk-a{Enter}sk-b');
    await addCustomModels('gpt-4o');
    await submit();
    expect(await screen.findByText('渠道创建成功！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/')[0]!.body).toMatchObject({ key: 'sk-a\nsk-b', multi_key_mode: 'polling' });
  });

  it('checks each key against its type as it is typed, naming the batch line', async () => {
    openAdd();
    await userEvent.type(await screen.findByPlaceholderText('请为渠道命名'), 'spark');
    await chooseType('讯飞', '讯飞星火认知');
    await userEvent.click(screen.getByLabelText(/批量创建/));
    await userEvent.type(screen.getByPlaceholderText('请输入密钥，一行一个'), 'app|secret|key{Enter}app|secret');
    await addCustomModels('SparkDesk-v3.5');
    await submit();
    expect(await screen.findByText('第 2 个密钥：密钥格式不正确。按照如下格式输入：APPID|APISecret|APIKey')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/')).toHaveLength(0);
  });

  it('adds trimmed custom models and refuses ones already chosen', async () => {
    openAdd();
    await screen.findByPlaceholderText('请为渠道命名');
    await addCustomModels(' alpha , beta,, ');
    expect(chosen('模型')).toEqual(['alpha', 'beta']);
    await addCustomModels('gamma, beta');
    expect(await screen.findByText('某些模型已存在！')).toBeInTheDocument();
    expect(chosen('模型')).toEqual(['alpha', 'beta']);
    expect(screen.getByPlaceholderText('输入自定义模型名称，多个用英文逗号分隔')).toHaveValue('gamma, beta');
  });

  it('fills related models, all models, and clears them', async () => {
    openAdd();
    await screen.findByPlaceholderText('请为渠道命名');
    await waitFor(() => expect(fake.callsTo('GET', '/api/models')).toHaveLength(1));
    await waitFor(() => expect(fake.callsTo('GET', '/api/channel/models')).toHaveLength(1));
    await userEvent.click(buttonNamed('填入相关模型'));
    await waitFor(() => expect(chosen('模型')).toEqual(['gpt-4o-mini', 'gpt-4o']));
    expect(JSON.parse(localStorage.getItem('models')!)).toEqual({ 1: ['gpt-4o-mini'] });
    await userEvent.click(buttonNamed('填入所有模型'));
    expect(chosen('模型')).toEqual(['gpt-4o', 'claude-3-5-haiku-20241022']);
    await userEvent.click(buttonNamed('清除所有模型'));
    expect(chosen('模型')).toEqual([]);
  });

  it('checks that the model mapping is JSON', async () => {
    openAdd();
    await userEvent.type(await screen.findByPlaceholderText('请为渠道命名'), 'main');
    await userEvent.type(screen.getByPlaceholderText('请输入渠道对应的鉴权密钥'), 'sk-one');
    await addCustomModels('gpt-4o');
    fireEvent.change(fieldOf('模型重定向').querySelector('textarea')!, { target: { value: '{"gpt-4o": ' } });
    await submit();
    expect(await screen.findByText('模型映射必须是合法的 JSON 格式！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/')).toHaveLength(0);
  });

  it('fetches upstream models with the typed key, and says so when it fails', async () => {
    fake.fail('POST', '/api/channel/fetch_models', 'the upstream refused the model list (status 401)');
    openAdd();
    await screen.findByPlaceholderText('请为渠道命名');
    await userEvent.click(buttonNamed('获取模型列表'));
    expect(await screen.findByText('请先填写密钥')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/fetch_models')).toHaveLength(0);
    await userEvent.type(screen.getByPlaceholderText('请输入渠道对应的鉴权密钥'), 'sk-one');
    await userEvent.click(buttonNamed('获取模型列表'));
    expect(await screen.findByText('获取模型列表失败')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/fetch_models')[0]!.body).toEqual({ type: 1, base_url: '', key: 'sk-one', allow_private_network: false });
  });

  /** Issue 22.10 (rule R2): reaching private networks is the channel's own switch, off for a new one, with a warning. */
  const privateWarning =
    '开启后，该渠道可以访问本机、内网和云元数据等内部地址（例如 127.0.0.1、10.0.0.0/8、169.254.169.254）。仅对你信任的内网上游（如自建的 Ollama、vLLM）开启；每次修改都会记入日志。';
  const privateSwitch = () => within(fieldOf('允许访问内网')).getByRole('switch');

  it('offers the private-network switch off, warns when it is turned on, and sends it', async () => {
    fake.ok('POST', '/api/channel/', { ids: [12] });
    fake.ok('POST', '/api/channel/fetch_models', ['llama3']);
    openAdd();
    await userEvent.type(await screen.findByPlaceholderText('请为渠道命名'), 'ollama');
    await userEvent.type(screen.getByPlaceholderText('请输入渠道对应的鉴权密钥'), 'sk-local');
    expect(privateSwitch()).not.toBeChecked();
    expect(screen.queryByText(privateWarning)).not.toBeInTheDocument();
    await userEvent.click(privateSwitch());
    expect(await screen.findByText(privateWarning)).toBeInTheDocument();
    // Listing the upstream's models of the unsaved channel goes by the switch too.
    await userEvent.click(buttonNamed('获取模型列表'));
    expect(await screen.findByText('获取模型列表成功')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/fetch_models')[0]!.body).toMatchObject({ allow_private_network: true });
    await submit();
    expect(await screen.findByText('渠道创建成功！')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/channel/')[0]!.body).toMatchObject({ name: 'ollama', allow_private_network: true });
  });

  it('shows the organization for OpenAI and the Azure and custom fields', async () => {
    openAdd();
    await screen.findByPlaceholderText('请为渠道命名');
    expect(screen.getByText('组织', { selector: 'label' })).toBeInTheDocument();

    await chooseType('Azure', 'Azure OpenAI');
    expect(await screen.findByText('AZURE_OPENAI_ENDPOINT', { selector: 'label' })).toBeInTheDocument();
    expect(screen.getByText('默认 API 版本', { selector: 'label' })).toBeInTheDocument();
    expect(screen.queryByText('组织', { selector: 'label' })).not.toBeInTheDocument();

    await chooseType('自定义', '自定义渠道');
    expect(await screen.findByText('完整的 Base URL，支持变量{model}', { selector: 'label' })).toBeInTheDocument();
    expect(screen.getByText('额外设置', { selector: 'label' })).toBeInTheDocument();
  });

  it('shows the fields of the deployment, music and Spark types', async () => {
    openAdd();
    await screen.findByPlaceholderText('请为渠道命名');
    await chooseType('FastGPT', '知识库：FastGPT');
    expect(await screen.findByText('私有部署地址', { selector: 'label' })).toBeInTheDocument();

    await chooseType('Suno', 'Suno API');
    expect(await screen.findByPlaceholderText('请输入到 /suno 前的路径，通常就是域名，例如：https://api.example.com')).toBeInTheDocument();

    await chooseType('讯飞', '讯飞星火认知');
    expect(await screen.findByText('模型版本', { selector: 'label' })).toBeInTheDocument();
    expect(screen.getByPlaceholderText('按照如下格式输入：APPID|APISecret|APIKey')).toBeInTheDocument();
  });

  it('shows the fields of the knowledge base, Cloudflare, Vertex AI and Bedrock types, and the default base URL as placeholder', async () => {
    openAdd();
    await screen.findByPlaceholderText('请为渠道命名');
    expect(screen.getByPlaceholderText('https://api.openai.com')).toBeInTheDocument();
    await chooseType('AI Proxy', '知识库：AI Proxy');
    expect(await screen.findByText('知识库 ID', { selector: 'label' })).toBeInTheDocument();

    await chooseType('Cloudflare', 'Cloudflare');
    expect(await screen.findByText('Account ID', { selector: 'label' })).toBeInTheDocument();

    await chooseType('Vertex', 'Vertex AI');
    expect(await screen.findByText('部署地区', { selector: 'label' })).toBeInTheDocument();
    expect(screen.getByPlaceholderText('请输入服务账号的 JSON 密钥（鉴权 JSON）').tagName).toBe('TEXTAREA');

    await chooseType('AWS', 'AWS Claude');
    expect(await screen.findByText('AWS 地区', { selector: 'label' })).toBeInTheDocument();
    expect(screen.getByPlaceholderText('例如：us-east-1')).toBeInTheDocument();

    await chooseType('DeepSeek', 'DeepSeek');
    expect(await screen.findByPlaceholderText('https://api.deepseek.com')).toBeInTheDocument();
  });

  it('needs the full URL for a custom channel', async () => {
    openAdd();
    await screen.findByPlaceholderText('请为渠道命名');
    await chooseType('自定义', '自定义渠道');
    await submit();
    expect(await screen.findByText('请输入完整的 Base URL')).toBeInTheDocument();
  });

  it('fills the presets of the drawing and music types when no model is chosen', async () => {
    openAdd();
    await screen.findByPlaceholderText('请为渠道命名');
    await chooseType('Suno', 'Suno API');
    expect(chosen('模型')).toEqual(['suno_music', 'suno_lyrics']);
    await userEvent.click(buttonNamed('清除所有模型'));
    await chooseType('Midjourney Proxy', 'Midjourney Proxy');
    expect(chosen('模型')).toContain('mj_imagine');
    expect(chosen('模型')).not.toContain('swap_face');
  });
});

describe('channel form: edit', () => {
  const stored = makeChannel({ id: 5, name: 'stored', models: 'gpt-4o', group: 'default', priority: 3, tag: 'team' });

  it('sends only the id and the changed fields, and keeps the key when it is empty', async () => {
    fake.ok('GET', '/api/channel/5', stored);
    fake.ok('PUT', '/api/channel/', { ...stored, name: 'renamed' });
    const { router } = openEdit(5);
    const name = await screen.findByDisplayValue('stored');
    await userEvent.clear(name);
    await userEvent.type(name, 'renamed');
    await submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/channel'));
    expect(fake.callsTo('PUT', '/api/channel/')[0]!.body).toEqual({ id: 5, name: 'renamed' });
  });

  it('sends a typed key', async () => {
    fake.ok('GET', '/api/channel/5', stored);
    fake.ok('PUT', '/api/channel/', stored);
    openEdit(5);
    await screen.findByDisplayValue('stored');
    await userEvent.type(screen.getByPlaceholderText('留空则保持原密钥不变'), 'sk-new');
    await submit();
    expect(await screen.findByText('渠道更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/')[0]!.body).toEqual({ id: 5, key: 'sk-new' });
  });

  it('adds new keys to a channel with many keys', async () => {
    const pool = makeChannel({ id: 6, name: 'pool', models: 'gpt-4o', multi_key: { mode: 'random', size: 3, live: 3 } });
    fake.ok('GET', '/api/channel/6', pool);
    fake.ok('PUT', '/api/channel/', pool);
    openEdit(6);
    await screen.findByDisplayValue('pool');
    expect(screen.getByLabelText('追加到现有密钥')).toBeChecked();
    await userEvent.type(screen.getByPlaceholderText('请输入密钥，一行一个'), 'sk-x{Enter}sk-y');
    await submit();
    expect(await screen.findByText('渠道更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/')[0]!.body).toEqual({ id: 6, key: 'sk-x\nsk-y', key_mode: 'append' });
  });

  it('replaces the keys of a channel with many keys and changes how they are picked', async () => {
    const pool = makeChannel({ id: 6, name: 'pool', models: 'gpt-4o', multi_key: { mode: 'random', size: 3, live: 3 } });
    fake.ok('GET', '/api/channel/6', pool);
    fake.ok('PUT', '/api/channel/', pool);
    openEdit(6);
    await screen.findByDisplayValue('pool');
    await userEvent.type(screen.getByPlaceholderText('请输入密钥，一行一个'), 'sk-z');
    await userEvent.click(screen.getByLabelText('替换全部密钥'));
    fireEvent.mouseDown(fieldOf('密钥选择方式').querySelector('[role="combobox"]')!);
    await userEvent.click((await screen.findAllByTitle('轮询')).at(-1)!);
    await submit();
    expect(await screen.findByText('渠道更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/')[0]!.body).toEqual({ id: 6, key: 'sk-z', key_mode: 'replace', multi_key_mode: 'polling' });
  });

  it('says when nothing changed', async () => {
    fake.ok('GET', '/api/channel/5', stored);
    openEdit(5);
    await screen.findByDisplayValue('stored');
    await submit();
    expect(await screen.findByText('没有任何修改！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/')).toHaveLength(0);
  });

  it('shows the stored private-network switch and sends only its change', async () => {
    const open = makeChannel({ id: 6, name: 'local', models: 'gpt-4o', allow_private_network: true });
    fake.ok('GET', '/api/channel/6', open);
    fake.ok('PUT', '/api/channel/', { ...open, allow_private_network: false });
    openEdit(6);
    await screen.findByDisplayValue('local');
    const toggle = within(fieldOf('允许访问内网')).getByRole('switch');
    expect(toggle).toBeChecked();
    await userEvent.click(toggle);
    await submit();
    expect(await screen.findByText('渠道更新成功！')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/channel/')[0]!.body).toEqual({ id: 6, allow_private_network: false });
  });

  it('fetches upstream models through the stored channel and merges them', async () => {
    fake.ok('GET', '/api/channel/5', stored);
    fake.ok('GET', '/api/channel/fetch_models/5', ['gpt-4o', 'o3']);
    openEdit(5);
    await screen.findByDisplayValue('stored');
    await userEvent.click(buttonNamed('获取模型列表'));
    expect(await screen.findByText('获取模型列表成功')).toBeInTheDocument();
    expect(chosen('模型')).toEqual(['gpt-4o', 'o3']);
  });

  it('shows the server message when the update is refused', async () => {
    fake.ok('GET', '/api/channel/5', stored);
    fake.fail('PUT', '/api/channel/', 'group: "x" is longer than 64 characters');
    openEdit(5);
    const name = await screen.findByDisplayValue('stored');
    await userEvent.type(name, '2');
    await submit();
    expect(await screen.findByText('group: "x" is longer than 64 characters')).toBeInTheDocument();
  });

  it("shows what the channel's limits count now", async () => {
    fake.ok('GET', '/api/channel/5', { ...stored, rate_limits: { rpm: 500, tpd: 1_000_000 } });
    fake.ok('GET', '/api/limits/use', [
      { field: 'rpm', used: 120, reset_seconds: 30 },
      { field: 'rpd', used: 4_200, reset_seconds: 3600 },
      { field: 'tpm', used: 0, reset_seconds: 30 },
      { field: 'tpd', used: 0, reset_seconds: 3600 },
    ]);
    openEdit(5);
    await screen.findByDisplayValue('stored');
    expect(within(fieldOf('每分钟请求数 (RPM)')).getByDisplayValue('500')).toBeInTheDocument();
    expect(await within(fieldOf('每分钟请求数 (RPM)')).findByText('当前已用 120')).toBeInTheDocument();
    expect(within(fieldOf('每天请求数 (RPD)')).getByText('当前已用 4,200')).toBeInTheDocument();
    // A limit with nothing counted yet says so; an open window with nothing counted says nothing.
    expect(within(fieldOf('每天 Token 数 (TPD)')).getByText('当前已用 0')).toBeInTheDocument();
    expect(within(fieldOf('每分钟 Token 数 (TPM)')).queryByText(/当前已用/)).not.toBeInTheDocument();
    expect(Object.fromEntries(fake.callsTo('GET', '/api/limits/use')[0]!.query)).toEqual({ scope: 'channel', id: '5' });
  });

  it('says the channel is gone when it cannot be loaded', async () => {
    fake.status('GET', '/api/channel/404', 404, { success: false, message: 'channel not found' });
    openEdit(404);
    expect(await screen.findByText('渠道未找到，请刷新页面后重试。')).toBeInTheDocument();
  });
});
