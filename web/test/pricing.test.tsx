import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { PricingPage } from '../src/features/pricing/PricingPage';
import { formatDollars, groupRatioColor, modelPrice } from '../src/features/pricing/prices';
import { makeUser, renderPage, setupFakeApi, stubClipboard } from './render';

const rows = [
  { model_name: 'gpt-4o', quota_type: 0, model_ratio: 1.25, model_price: 0, completion_ratio: 4, enable_groups: ['default', 'vip'] },
  { model_name: 'dall-e-3', quota_type: 1, model_ratio: 0, model_price: 0.04, completion_ratio: 0, enable_groups: ['vip'] },
];

describe('prices', () => {
  it('follows the spec formula per 1M tokens and per call', () => {
    expect(modelPrice(rows[0] as never, 1)).toEqual({ kind: 'tokens', inputPerMillion: 2.5, outputPerMillion: 10 });
    expect(modelPrice(rows[0] as never, 2)).toEqual({ kind: 'tokens', inputPerMillion: 5, outputPerMillion: 20 });
    expect(modelPrice(rows[1] as never, 1.5)).toEqual({ kind: 'call', perCall: 0.06 });
    expect(formatDollars(2.5)).toBe('$2.5');
    expect(formatDollars(10)).toBe('$10');
    expect(formatDollars(0.000123)).toBe('$0.000123');
  });

  it('colours group ratios: over 5 red, over 3 orange, over 1 blue, else green', () => {
    expect([6, 5, 4, 3, 2, 1, 0.5].map(groupRatioColor)).toEqual(['red', 'orange', 'orange', 'blue', 'blue', 'green', 'green']);
  });
});

describe('pricing page', () => {
  const fake = setupFakeApi();

  it('shows guests the default group with a login prompt', async () => {
    fake.on('GET', '/api/pricing', () => ({
      body: { success: true, message: '', data: rows, group_ratio: { default: 1 }, usable_group: { default: 'default group' } },
    }));
    renderPage(<PricingPage />);
    expect(await screen.findByText('您当前看到的是默认分组的价格，登录后可查看您所在分组的价格。')).toBeInTheDocument();
    const row = (await screen.findByText('gpt-4o')).closest('tr')!;
    expect(within(row).getByText('提示 $2.5 / 1M tokens')).toBeInTheDocument();
    expect(within(row).getByText('补全 $10 / 1M tokens')).toBeInTheDocument();
  });

  it('prices by the chosen group and searches by name', async () => {
    fake.on('GET', '/api/pricing', () => ({
      body: { success: true, message: '', data: rows, group_ratio: { default: 1, vip: 2 }, usable_group: { default: 'd', vip: 'v' } },
    }));
    renderPage(<PricingPage />, { user: makeUser({ group: 'default' }) });
    await screen.findByText('gpt-4o');
    expect(screen.queryByText('您当前看到的是默认分组的价格，登录后可查看您所在分组的价格。')).not.toBeInTheDocument();
    await userEvent.click(screen.getByText('vip'));
    expect(await screen.findByText('提示 $5 / 1M tokens')).toBeInTheDocument();
    expect(screen.getByText('$0.08 / 次')).toBeInTheDocument();
    await userEvent.type(screen.getByPlaceholderText('模糊搜索模型名称'), 'dall');
    expect(screen.queryByText('gpt-4o')).not.toBeInTheDocument();
  });

  it('copies the selected model names and asks for a selection first', async () => {
    const writeText = stubClipboard();
    fake.on('GET', '/api/pricing', () => ({ body: { success: true, message: '', data: rows, group_ratio: { default: 1 }, usable_group: { default: 'd' } } }));
    renderPage(<PricingPage />);
    await screen.findByText('gpt-4o');
    await userEvent.click(screen.getByRole('button', { name: /复制选中模型/ }));
    expect(await screen.findByText('请至少选择一个模型！')).toBeInTheDocument();
    const checkboxes = screen.getAllByRole('checkbox');
    await userEvent.click(checkboxes[0]!);
    await userEvent.click(screen.getByRole('button', { name: /复制选中模型/ }));
    expect(writeText).toHaveBeenCalledWith('gpt-4o,dall-e-3');
  });
});
