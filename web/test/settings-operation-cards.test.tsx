import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEventBase, { PointerEventsCheckLevel } from '@testing-library/user-event';
import dayjs from 'dayjs';
import { deadLetterServices, Role } from '@aigw/contracts';
import { ChatCard } from '../src/features/settings/operation/ChatCard';
import { DashboardCard } from '../src/features/settings/operation/DashboardCard';
import { DrawingCard } from '../src/features/settings/operation/DrawingCard';
import { GeneralCard } from '../src/features/settings/operation/GeneralCard';
import { GroupCard } from '../src/features/settings/operation/GroupCard';
import { JobsCard } from '../src/features/settings/operation/JobsCard';
import { LogCard } from '../src/features/settings/operation/LogCard';
import { MonitoringCard } from '../src/features/settings/operation/MonitoringCard';
import { OperationTab } from '../src/features/settings/operation/OperationTab';
import { QuotaCard } from '../src/features/settings/operation/QuotaCard';
import { RatioCard } from '../src/features/settings/operation/RatioCard';
import { SensitiveCard } from '../src/features/settings/operation/SensitiveCard';
import { makeUser, renderPage, setupFakeApi } from './render';

const root = makeUser({ id: 1, username: 'root', role: Role.Root });
const fake = setupFakeApi();

const stored: Record<string, string> = {
  TopUpLink: 'https://shop.example.com',
  ChatLink: '',
  'general_setting.docs_link': 'https://docs.example.com',
  QuotaPerUnit: '500000',
  RetryTimes: '1',
  DemoSiteEnabled: 'false',
  DrawingEnabled: 'true',
  MjNotifyEnabled: 'false',
  CheckSensitiveEnabled: 'true',
  SensitiveWords: 'foo\nbar',
  LogConsumeEnabled: 'true',
  LogRetentionDays: '0',
  DataExportEnabled: 'true',
  DataExportDefaultTime: 'hour',
  ChannelDisableThreshold: '5',
  AutomaticDisableKeywords: 'quota exceeded',
  QuotaForNewUser: '1000000',
  PreConsumedQuota: '500',
  Chats: '[{"NextChat":"https://chat.example.com"}]',
  GroupRatio: '{"default":1,"vip":0.8}',
  UserUsableGroups: '{"default":"default group"}',
};

beforeEach(() => {
  fake.ok(
    'GET',
    '/api/option/',
    Object.entries(stored).map(([key, value]) => ({ key, value })),
  );
  fake.ok('PUT', '/api/option/');
});

const puts = () => fake.callsTo('PUT', '/api/option/').map((call) => call.body);
// Queries by label and text: getByRole computes styles for the whole antd tree (seconds per
// query in jsdom), and so does user-event's pointer-events check; nothing here is covered.
const userEvent = userEventBase.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });
const button = (text: string | RegExp, container: HTMLElement = document.body) =>
  within(container).getByText(text, { selector: 'button > span' }).closest('button')!;
const click = (text: string) => userEvent.click(button(text));
/** antd writes two-character Chinese button texts with a space ("确 定"). */
const okButton = async () => (await screen.findByText(/^确\s?定$/, { selector: 'button > span' })).closest('button')!;
const confirmDialog = async (title: string) => (await screen.findByText(title, { selector: '.ant-modal-confirm-title' })).closest<HTMLElement>('.ant-modal')!;
const noConfirmDialog = () => expect(document.querySelector('.ant-modal-confirm')).toBeNull();

async function replace(label: string, text: string) {
  const input = await screen.findByLabelText(label);
  fireEvent.change(input, { target: { value: text } });
  return input;
}

describe('operation tab', () => {
  it('shows every card of the operation settings', async () => {
    fake.ok('GET', '/api/job/', []);
    for (const service of deadLetterServices) fake.ok('GET', `/api/dead_letter/${service}/`, { items: [], total: 0, page: 1, page_size: 10 });
    renderPage(<OperationTab />, { user: root });
    for (const title of [
      '通用设置',
      '绘图设置',
      '屏蔽词过滤设置',
      '日志设置',
      '数据看板设置',
      '监控设置',
      '后台任务',
      '死信事件',
      '额度设置',
      '聊天设置',
      '分组设置',
      '速率限制',
      '倍率设置',
    ]) {
      expect(await screen.findByText(title)).toBeInTheDocument();
    }
    // All cards share one load of the options.
    expect(fake.callsTo('GET', '/api/option/')).toHaveLength(1);
    expect(fake.unexpected).toEqual([]);
  });
});

describe('general card', () => {
  it('shows the stored options and the defaults of missing ones', async () => {
    renderPage(<GeneralCard />, { user: root });
    expect(await screen.findByLabelText('充值链接')).toHaveValue('https://shop.example.com');
    expect(screen.getByLabelText('文档地址')).toHaveValue('https://docs.example.com');
    expect(screen.getByLabelText('单位美元额度')).toHaveValue('500000');
    expect(screen.getByLabelText('失败重试次数')).toHaveValue('1');
    expect(screen.getByLabelText('演示站点模式')).not.toBeChecked();
    // Not stored: the contracts' defaults (DisplayInCurrencyEnabled true, StreamCacheQueueLength 0).
    expect(screen.getByLabelText('以货币形式显示额度')).toBeChecked();
    expect(screen.getByLabelText('流模式缓存队列长度')).toHaveValue('0');
  });

  it('saves only the changed options, dotted keys included', async () => {
    renderPage(<GeneralCard />, { user: root });
    await replace('失败重试次数', '3');
    await userEvent.click(screen.getByLabelText('演示站点模式'));
    await replace('文档地址', 'https://docs.new.example.com/');
    await click('保存通用设置');
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([
      { key: 'general_setting.docs_link', value: 'https://docs.new.example.com/' },
      { key: 'RetryTimes', value: '3' },
      { key: 'DemoSiteEnabled', value: 'true' },
    ]);
  });

  it('says so when nothing changed', async () => {
    renderPage(<GeneralCard />, { user: root });
    await screen.findByLabelText('充值链接');
    await click('保存通用设置');
    expect(await screen.findByText('你似乎并没有修改什么')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });
});

describe('drawing and sensitive-word cards', () => {
  it('saves a drawing switch', async () => {
    renderPage(<DrawingCard />, { user: root });
    const notify = await screen.findByLabelText('允许回调（会泄露服务器 IP 地址）');
    expect(screen.getByLabelText('启用绘图功能')).toBeChecked();
    await userEvent.click(notify);
    await click('保存绘图设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([{ key: 'MjNotifyEnabled', value: 'true' }]);
  });

  it('edits the sensitive words one per line', async () => {
    renderPage(<SensitiveCard />, { user: root });
    const words = await screen.findByLabelText('屏蔽词列表');
    expect(words).toHaveValue('foo\nbar');
    fireEvent.change(words, { target: { value: 'foo\nbar\nbaz' } });
    await userEvent.click(screen.getByLabelText('启用屏蔽词过滤功能'));
    await click('保存屏蔽词过滤设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([
      { key: 'CheckSensitiveEnabled', value: 'false' },
      { key: 'SensitiveWords', value: 'foo\nbar\nbaz' },
    ]);
  });
});

describe('log card', () => {
  it('saves the log options', async () => {
    renderPage(<LogCard />, { user: root });
    await replace('日志保留天数', '30');
    await click('保存日志设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([{ key: 'LogRetentionDays', value: '30' }]);
  });

  it('clears the logs before one month ago by default, after a confirmation, and shows the count', async () => {
    fake.ok('DELETE', '/api/log/', 42);
    renderPage(<LogCard />, { user: root });
    const picker = await screen.findByLabelText('日志记录时间');
    const expected = dayjs().subtract(1, 'month');
    // The card read the clock when it rendered: a second may have passed since on a busy machine.
    expect(Math.abs(dayjs((picker as HTMLInputElement).value).unix() - expected.unix())).toBeLessThanOrEqual(5);
    await click('清除历史日志');
    await confirmDialog('确定要清除历史日志吗？');
    expect(fake.callsTo('DELETE', '/api/log/')).toHaveLength(0);
    await userEvent.click(await okButton());
    expect(await screen.findByText('已清理 42 条日志！')).toBeInTheDocument();
    const [call] = fake.callsTo('DELETE', '/api/log/');
    expect(Math.abs(Number(call!.query.get('target_timestamp')) - expected.unix())).toBeLessThanOrEqual(5);
  });

  it('needs a time to clear', async () => {
    renderPage(<LogCard />, { user: root });
    const picker = await screen.findByLabelText('日志记录时间');
    fireEvent.mouseDown(picker.closest('.ant-picker')!.querySelector('.ant-picker-clear')!);
    fireEvent.mouseUp(picker.closest('.ant-picker')!.querySelector('.ant-picker-clear')!);
    fireEvent.click(picker.closest('.ant-picker')!.querySelector('.ant-picker-clear')!);
    await waitFor(() => expect(picker).toHaveValue(''));
    await click('清除历史日志');
    expect(await screen.findByText('请选择日志记录时间')).toBeInTheDocument();
    noConfirmDialog();
    expect(fake.callsTo('DELETE', '/api/log/')).toHaveLength(0);
  });

  it('shows the server message when clearing fails', async () => {
    fake.fail('DELETE', '/api/log/', 'target_timestamp: invalid');
    renderPage(<LogCard />, { user: root });
    await screen.findByLabelText('日志记录时间');
    await click('清除历史日志');
    await userEvent.click(await okButton());
    expect(await screen.findByText('target_timestamp: invalid')).toBeInTheDocument();
    expect(screen.queryByText(/已清理/)).not.toBeInTheDocument();
  });
});

describe('data dashboard card', () => {
  it('shows the default interval and refuses one under a minute', async () => {
    renderPage(<DashboardCard />, { user: root });
    const interval = await screen.findByLabelText('数据看板更新间隔');
    expect(interval).toHaveValue('5');
    await replace('数据看板更新间隔', '0');
    expect(await screen.findByText('数据看板更新间隔最小为 1 分钟')).toBeInTheDocument();
    await click('保存数据看板设置');
    expect(await screen.findByText('请检查输入')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('saves the interval and the granularity (hour, day or week)', async () => {
    renderPage(<DashboardCard />, { user: root });
    await replace('数据看板更新间隔', '1');
    fireEvent.mouseDown(screen.getByLabelText('数据看板默认时间粒度'));
    await waitFor(() => expect(document.querySelector('.ant-select-dropdown')).not.toBeNull());
    const labels = [...document.querySelectorAll('.ant-select-item-option-content')].map((option) => option.textContent);
    expect(labels).toEqual(['小时', '天', '周']);
    await userEvent.click(within(document.querySelector<HTMLElement>('.ant-select-dropdown')!).getByText('周'));
    await click('保存数据看板设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([
      { key: 'DataExportInterval', value: '1' },
      { key: 'DataExportDefaultTime', value: 'week' },
    ]);
  });
});

describe('monitoring card', () => {
  it('saves the threshold in seconds and the keywords', async () => {
    renderPage(<MonitoringCard />, { user: root });
    expect(await screen.findByLabelText('最长响应时间')).toHaveValue('5');
    expect(screen.getByLabelText('额度提醒阈值')).toHaveValue('1000');
    await replace('最长响应时间', '2.5');
    fireEvent.change(screen.getByLabelText('自动禁用关键词'), { target: { value: 'quota exceeded\naccount banned' } });
    await userEvent.click(screen.getByLabelText('允许访问内网上游'));
    await click('保存监控设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([
      { key: 'ChannelDisableThreshold', value: '2.5' },
      { key: 'AutomaticDisableKeywords', value: 'quota exceeded\naccount banned' },
      { key: 'AllowPrivateNetworkUpstreams', value: 'true' },
    ]);
  });
});

describe('channel schedules and background jobs', () => {
  it('saves the test and balance frequencies in minutes', async () => {
    renderPage(<MonitoringCard />, { user: root });
    expect(await screen.findByLabelText('自动测试所有渠道间隔')).toHaveValue('0');
    expect(screen.getByLabelText('自动更新渠道余额间隔')).toHaveValue('0');
    await replace('自动测试所有渠道间隔', '10');
    await replace('自动更新渠道余额间隔', '60');
    await click('保存监控设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([
      { key: 'ChannelTestFrequency', value: '10' },
      { key: 'ChannelUpdateFrequency', value: '60' },
    ]);
  });

  it('lists each job with its last run, outcome and summary, and the jobs that never ran', async () => {
    const run = {
      started_at: 1_700_000_000,
      finished_at: 1_700_000_002,
      duration_ms: 1840,
      outcome: 'ok',
      summary: 'tested 12 channels, 1 failed, 1 disabled, 0 enabled',
    };
    const scheduled = { wanted: true, every_ms: 60_000, registered: true, next_run_at: 1_700_000_060 };
    fake.ok('GET', '/api/job/', [
      {
        name: 'channels.test-all',
        service: 'channels',
        schedule: 'every ChannelTestFrequency minutes',
        description: 'Tests channels.',
        last_run: run,
        last_skipped: { ...run, outcome: 'skipped', summary: 'another run is in progress' },
        schedule_status: scheduled,
      },
      {
        name: 'billing.logs.retention',
        service: 'billing',
        schedule: 'daily',
        description: 'Deletes old logs.',
        last_run: { ...run, outcome: 'failed', summary: 'database unavailable' },
        last_skipped: null,
        schedule_status: { ...scheduled, every_ms: 86_400_000, next_run_at: 1_700_086_400 },
      },
      {
        name: 'relay.holds.sweep',
        service: 'relay',
        schedule: 'every minute',
        description: 'Releases holds.',
        last_run: null,
        last_skipped: null,
        schedule_status: scheduled,
      },
    ]);
    renderPage(<JobsCard />, { user: root });
    expect(await screen.findByText('测试所有渠道')).toBeInTheDocument();
    expect(screen.getByText('tested 12 channels, 1 failed, 1 disabled, 0 enabled')).toBeInTheDocument();
    expect(screen.getByText('成功')).toBeInTheDocument();
    expect(screen.getAllByText('1840 毫秒')).toHaveLength(2);
    expect(screen.getByText('失败')).toBeInTheDocument();
    expect(screen.getByText('database unavailable')).toBeInTheDocument();
    expect(screen.getByText('尚未运行')).toBeInTheDocument();
    expect(screen.getAllByText(dayjs.unix(1_700_000_000).format('YYYY-MM-DD HH:mm:ss'))).toHaveLength(3);
    expect(screen.getAllByText('已计划')).toHaveLength(3);
    expect(screen.getAllByText(dayjs.unix(1_700_000_060).format('YYYY-MM-DD HH:mm:ss'))).toHaveLength(2);
    expect(screen.getByText(dayjs.unix(1_700_086_400).format('YYYY-MM-DD HH:mm:ss'))).toBeInTheDocument();
  });

  it('tells a schedule lost from the job store (being re-created) from one that is off', async () => {
    const job = { service: 'relay', schedule: 'every minute', description: 'Releases holds.', last_run: null, last_skipped: null };
    fake.ok('GET', '/api/job/', [
      { ...job, name: 'relay.holds.sweep', schedule_status: { wanted: true, every_ms: 60_000, registered: false, next_run_at: null } },
      { ...job, name: 'channels.test-all', schedule_status: { wanted: false, every_ms: null, registered: false, next_run_at: null } },
    ]);
    renderPage(<JobsCard />, { user: root });
    expect(await screen.findByText('计划缺失')).toBeInTheDocument();
    expect(screen.getByText('未计划')).toBeInTheDocument();
    expect(screen.queryByText('已计划')).toBeNull();
    await userEvent.hover(screen.getByText('计划缺失'));
    expect(await screen.findByText(/服务会在一分钟内自动重建/)).toBeInTheDocument();
  });
});

describe('quota card', () => {
  it('shows each amount in dollars by QuotaPerUnit and saves the changes', async () => {
    renderPage(<QuotaCard />, { user: root });
    const newUser = await screen.findByLabelText('新用户初始额度');
    expect(newUser).toHaveValue('1000000');
    expect(screen.getByText('≈ $2')).toBeInTheDocument();
    // Small amounts keep their digits: 500 / 500000 = $0.001.
    expect(screen.getByText('≈ $0.001')).toBeInTheDocument();
    await replace('邀请新用户奖励额度', '250000');
    expect(await screen.findByText('≈ $0.5')).toBeInTheDocument();
    await click('保存额度设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([{ key: 'QuotaForInviter', value: '250000' }]);
  });
});

describe('chat and group cards', () => {
  it('checks the chats JSON on blur', async () => {
    renderPage(<ChatCard />, { user: root });
    const chats = await screen.findByLabelText('聊天应用');
    fireEvent.change(chats, { target: { value: '[{"NextChat": ' } });
    fireEvent.blur(chats);
    expect(await screen.findByText('不是合法的 JSON 字符串')).toBeInTheDocument();
    await click('保存聊天设置');
    expect(await screen.findByText('请检查输入')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('checks the group ratio JSON on blur', async () => {
    renderPage(<GroupCard />, { user: root });
    const ratios = await screen.findByLabelText('分组倍率');
    fireEvent.change(ratios, { target: { value: '{"default": 1' } });
    expect(screen.queryByText('不是合法的 JSON 字符串')).not.toBeInTheDocument();
    fireEvent.blur(ratios);
    expect(await screen.findByText('不是合法的 JSON 字符串')).toBeInTheDocument();
  });

  it('refuses a user-selectable group without a ratio', async () => {
    renderPage(<GroupCard />, { user: root });
    const usable = await screen.findByLabelText('用户可选分组');
    fireEvent.change(usable, { target: { value: '{"default":"default group","svip":"super","gold":"gold"}' } });
    fireEvent.blur(usable);
    await click('保存分组倍率设置');
    expect(await screen.findByText('用户可选分组 svip, gold 未在分组倍率中设置')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('saves both maps when they agree', async () => {
    renderPage(<GroupCard />, { user: root });
    const usable = await screen.findByLabelText('用户可选分组');
    fireEvent.change(usable, { target: { value: '{"default":"default group","vip":"VIP"}' } });
    fireEvent.blur(usable);
    fireEvent.change(screen.getByLabelText('分组倍率'), { target: { value: '{"default":1,"vip":0.5}' } });
    await click('保存分组倍率设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([
      { key: 'GroupRatio', value: '{"default":1,"vip":0.5}' },
      { key: 'UserUsableGroups', value: '{"default":"default group","vip":"VIP"}' },
    ]);
  });
});

describe('model ratio card, JSON tab', () => {
  it('checks the ratio maps as JSON on blur and saves only the changed one', async () => {
    renderPage(<RatioCard />, { user: root });
    const ratios = await screen.findByLabelText('模型倍率');
    fireEvent.change(ratios, { target: { value: '{"gpt-4o": 1.25,' } });
    fireEvent.blur(ratios);
    expect(await screen.findByText('不是合法的 JSON 字符串')).toBeInTheDocument();
    await click('保存模型倍率设置');
    expect(await screen.findByText('请检查输入')).toBeInTheDocument();
    fireEvent.change(ratios, { target: { value: '{"gpt-4o": 2}' } });
    fireEvent.blur(ratios);
    await waitFor(() => expect(screen.queryByText('不是合法的 JSON 字符串')).not.toBeInTheDocument());
    await click('保存模型倍率设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([{ key: 'ModelRatio', value: '{"gpt-4o":2}' }]);
  });

  it('edits the cache write and audio ratios beside the others', async () => {
    fake.ok('GET', '/api/option/', [
      ...Object.entries(stored).map(([key, value]) => ({ key, value })),
      { key: 'CreateCacheRatio', value: '{"claude-*":1.25}' },
      { key: 'AudioRatio', value: '{"gpt-4o-audio-preview":16}' },
      { key: 'AudioCompletionRatio', value: '{}' },
    ]);
    renderPage(<RatioCard />, { user: root });
    const createCache = await screen.findByLabelText('缓存创建倍率');
    expect(createCache).toHaveValue(JSON.stringify({ 'claude-*': 1.25 }, null, 2));
    expect(screen.getByLabelText('音频倍率')).toHaveValue(JSON.stringify({ 'gpt-4o-audio-preview': 16 }, null, 2));
    expect(screen.getByLabelText('音频补全倍率')).toHaveValue('{}');
    expect(screen.getByText(/写入缓存的输入 token（Anthropic 的提示缓存）按输入价格 × 缓存创建倍率计费，未设置的模型为 1.25/)).toBeInTheDocument();
    expect(screen.getByText(/音频输入 token 的价格 = 文字输入价格 × 音频倍率/)).toBeInTheDocument();
    expect(screen.getByText(/音频输出 token 的价格 = 音频输入价格 × 音频补全倍率，未设置的模型为 2/)).toBeInTheDocument();

    const audioCompletion = await replace('音频补全倍率', '{"gpt-4o-audio-preview": 2,');
    fireEvent.blur(audioCompletion);
    expect(await screen.findByText('不是合法的 JSON 字符串')).toBeInTheDocument();
    fireEvent.change(audioCompletion, { target: { value: '{"gpt-4o-audio-preview": 3}' } });
    fireEvent.blur(audioCompletion);
    await replace('缓存创建倍率', '{"claude-*": 1.25, "claude-3-opus": 2}');
    await click('保存模型倍率设置');
    await screen.findByText('保存成功');
    expect(puts()).toEqual([
      { key: 'CreateCacheRatio', value: '{"claude-*":1.25,"claude-3-opus":2}' },
      { key: 'AudioCompletionRatio', value: '{"gpt-4o-audio-preview":3}' },
    ]);
  });

  it('resets the model ratios after a confirmation and shows the reloaded values', async () => {
    fake.ok('POST', '/api/option/rest_model_ratio');
    renderPage(<RatioCard />, { user: root });
    await screen.findByLabelText('模型倍率');
    await click('重置模型倍率');
    const dialog = await confirmDialog('确定重置模型倍率吗？');
    // Cancel sends nothing.
    await userEvent.click(button(/^取\s?消$/, dialog));
    await waitFor(noConfirmDialog);
    expect(fake.callsTo('POST', '/api/option/rest_model_ratio')).toHaveLength(0);

    fake.ok('GET', '/api/option/', [{ key: 'ModelRatio', value: '{"reset-model":3}' }]);
    await click('重置模型倍率');
    await userEvent.click(await okButton());
    expect(await screen.findByText('重置模型倍率成功')).toBeInTheDocument();
    expect(fake.callsTo('POST', '/api/option/rest_model_ratio')).toHaveLength(1);
    await waitFor(() => expect(screen.getByLabelText('模型倍率')).toHaveValue(JSON.stringify({ 'reset-model': 3 }, null, 2)));
  });
});
