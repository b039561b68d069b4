import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEventBase, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { Role } from '@aigw/contracts';
import { LimitsCard } from '../src/features/settings/operation/LimitsCard';
import { makeUser, renderPage, setupFakeApi } from './render';

const root = makeUser({ id: 1, username: 'root', role: Role.Root });
const fake = setupFakeApi();

// Some options stored, the others at the contracts' defaults (no row yet).
const stored: Record<string, string> = {
  DefaultUserRateLimits: '{"rpm":60}',
  GroupRateLimits: '{}',
  ModelRequestRateLimitEnabled: 'false',
  ModelRequestRateLimitCount: '0',
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
// Label and text queries, and no pointer-events check: role queries and style checks walk the
// whole antd tree and take seconds each in jsdom.
const userEvent = userEventBase.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });
const save = () => userEvent.click(screen.getByText('保存速率限制设置', { selector: 'button > span' }).closest('button')!);
const itemOf = (label: string) => screen.getByLabelText(label).closest('.ant-form-item') as HTMLElement;

async function replace(label: string, text: string) {
  const input = await screen.findByLabelText(label);
  fireEvent.change(input, { target: { value: text } });
  return input;
}

describe('limits card', () => {
  it('shows the stored sets and the defaults of the options not stored, each JSON one with an example', async () => {
    renderPage(<LimitsCard />, { user: root });
    expect(await screen.findByLabelText('用户默认限制')).toHaveValue('{\n  "rpm": 60\n}');
    expect(screen.getByLabelText('分组限制')).toHaveValue('{}');
    expect(screen.getByLabelText('模型限制')).toHaveValue('{}');
    expect(screen.getByLabelText('启用用户模型请求速率限制')).not.toBeChecked();
    expect(screen.getByLabelText('限制周期')).toHaveValue('1');
    expect(screen.getByLabelText('用户每周期最多请求次数')).toHaveValue('0');
    expect(screen.getByLabelText('用户每周期最多请求完成次数')).toHaveValue('1000');
    expect(screen.getByLabelText('分组速率限制')).toHaveValue('{}');
    expect(within(itemOf('用户默认限制')).getByText(/例如：\{"rpm":60,"rpd":10000,"concurrency":5\}$/)).toBeInTheDocument();
    expect(within(itemOf('分组限制')).getByText(/例如：\{"vip":\{"rpm":600,"tpm":2000000\}\}$/)).toBeInTheDocument();
    expect(within(itemOf('模型限制')).getByText(/例如：\{"gpt-4o":\{"rpm":600,"groups":\{"vip":\{"rpm":1200\}\}\}\}$/)).toBeInTheDocument();
    expect(within(itemOf('分组速率限制')).getByText(/例如：\{"vip":\[200,100\]\}$/)).toBeInTheDocument();
  });

  it('saves each changed option, one PUT per option, in their wire form', async () => {
    renderPage(<LimitsCard />, { user: root });
    await replace('用户默认限制', '{ "rpm": 120, "tpd": 1000000 }');
    await replace('分组限制', '{ "vip": { "rpm": 600 } }');
    await replace('模型限制', '{ "gpt-4o": { "rpm": 600, "groups": { "vip": { "rpm": 1200 } } } }');
    await userEvent.click(screen.getByLabelText('启用用户模型请求速率限制'));
    await replace('限制周期', '5');
    await replace('用户每周期最多请求次数', '100');
    await replace('用户每周期最多请求完成次数', '50');
    await replace('分组速率限制', '{ "vip": [200, 100] }');
    await save();
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([
      { key: 'DefaultUserRateLimits', value: '{"rpm":120,"tpd":1000000}' },
      { key: 'GroupRateLimits', value: '{"vip":{"rpm":600}}' },
      { key: 'ModelRateLimits', value: '{"gpt-4o":{"rpm":600,"groups":{"vip":{"rpm":1200}}}}' },
      { key: 'ModelRequestRateLimitEnabled', value: 'true' },
      { key: 'ModelRequestRateLimitDurationMinutes', value: '5' },
      { key: 'ModelRequestRateLimitCount', value: '100' },
      { key: 'ModelRequestRateLimitSuccessCount', value: '50' },
      { key: 'ModelRequestRateLimitGroup', value: '{"vip":[200,100]}' },
    ]);
  });

  it('sends only what changed', async () => {
    renderPage(<LimitsCard />, { user: root });
    // The same set written differently is no change.
    await replace('用户默认限制', '{"rpm":   60}');
    await replace('分组限制', '{"default": {"concurrency": 2}}');
    await save();
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([{ key: 'GroupRateLimits', value: '{"default":{"concurrency":2}}' }]);
  });

  it("refuses a bad set on its field with the message naming the option and the limit, in the console's language, and sends nothing", async () => {
    renderPage(<LimitsCard />, { user: root });
    fireEvent.blur(await replace('分组限制', '{"vip": {"rpm": -1}}'));
    expect(await screen.findByText('GroupRateLimits.vip.rpm: rpm 必须是不小于 0 的整数（0 表示不限制）')).toBeInTheDocument();
    fireEvent.blur(await replace('用户默认限制', '{"rps": 5}'));
    expect(await screen.findByText('DefaultUserRateLimits: 未知的限制 rps：可用的限制为 rpm、rpd、tpm、tpd 和 concurrency')).toBeInTheDocument();
    fireEvent.blur(await replace('模型限制', '{"gpt-4o": '));
    expect(await within(itemOf('模型限制')).findByText('不是合法的 JSON 字符串')).toBeInTheDocument();
    await save();
    expect(await screen.findByText('请检查输入')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it("shows the server's refusal of an option with its message, the others saved", async () => {
    fake.on('PUT', '/api/option/', (call) =>
      call.body.key === 'ModelRequestRateLimitGroup'
        ? { body: { success: false, message: 'ModelRequestRateLimitGroup: the option store did not answer, try again' } }
        : { body: { success: true, message: '', data: null } },
    );
    renderPage(<LimitsCard />, { user: root });
    await replace('用户每周期最多请求次数', '30');
    await replace('分组速率限制', '{"vip": [60, 30]}');
    await save();
    expect(await screen.findByText('部分保存失败，请重试: ModelRequestRateLimitGroup: the option store did not answer, try again')).toBeInTheDocument();
    await waitFor(() => expect(puts()).toHaveLength(2));
    expect(puts()[0]).toEqual({ key: 'ModelRequestRateLimitCount', value: '30' });
  });
});
