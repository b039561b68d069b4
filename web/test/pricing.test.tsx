import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { PricingRow } from '@aigw/contracts';
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
    // dall-e-3 is an image model: its fixed price is per image.
    expect(modelPrice(rows[1] as never, 1.5)).toEqual({ kind: 'image', perImage: 0.06, modelRatio: null });
    expect(formatDollars(2.5)).toBe('$2.5');
    expect(formatDollars(10)).toBe('$10');
    expect(formatDollars(0.000123)).toBe('$0.000123');
  });

  it('prices each unit of charge: per image, per 1M characters, per audio minute', () => {
    const row = (model_name: string, quota_type: 0 | 1, model_ratio: number, model_price = 0, completion_ratio = 1): PricingRow => ({
      model_name,
      quota_type,
      model_ratio,
      model_price,
      completion_ratio,
      enable_groups: ['default'],
    });
    // A fixed price per image; an image model with only a ratio costs 0.0025 × its ratio.
    expect(modelPrice(row('dall-e-3', 1, 0, 0.04), 2)).toEqual({ kind: 'image', perImage: 0.08, modelRatio: null });
    expect(modelPrice(row('flux-dev', 0, 16), 1)).toEqual({ kind: 'image', perImage: 0.04, modelRatio: 16 });
    // gpt-image with only a ratio is billed by the tokens it reports.
    expect(modelPrice(row('gpt-image-1', 0, 2.5, 0, 8), 1)).toEqual({ kind: 'tokens', inputPerMillion: 5, outputPerMillion: 40 });
    expect(modelPrice(row('gpt-image-1', 1, 0, 0.17), 1)).toEqual({ kind: 'image', perImage: 0.17, modelRatio: null });
    // Speech: one prompt token per character.
    expect(modelPrice(row('tts-1', 0, 7.5), 1)).toEqual({ kind: 'characters', perMillionCharacters: 15 });
    // Transcription: 1,000 tokens a minute, so 15 × 2 / 1M × 1000 = $0.03 a minute.
    expect(modelPrice(row('whisper-1', 0, 15), 1)).toEqual({ kind: 'audioMinute', perMinute: 0.03, inputPerMillion: 30, outputPerMillion: 30 });
    // A fixed price of a speech or transcription model is per call.
    expect(modelPrice(row('tts-1-hd', 1, 0, 0.02), 1)).toEqual({ kind: 'call', perCall: 0.02 });
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
    expect(screen.getByText('$0.08 / 张')).toBeInTheDocument();
    await userEvent.type(screen.getByPlaceholderText('模糊搜索模型名称'), 'dall');
    expect(screen.queryByText('gpt-4o')).not.toBeInTheDocument();
  });

  it('shows each unit of charge with its price and note', async () => {
    const units = [
      { model_name: 'dall-e-3', quota_type: 1, model_ratio: 0, model_price: 0.04, completion_ratio: 0, enable_groups: ['default'] },
      { model_name: 'flux-dev', quota_type: 0, model_ratio: 16, model_price: 0, completion_ratio: 1, enable_groups: ['default'] },
      { model_name: 'gpt-image-1', quota_type: 0, model_ratio: 2.5, model_price: 0, completion_ratio: 8, enable_groups: ['default'] },
      { model_name: 'tts-1', quota_type: 0, model_ratio: 7.5, model_price: 0, completion_ratio: 1, enable_groups: ['default'] },
      { model_name: 'whisper-1', quota_type: 0, model_ratio: 15, model_price: 0, completion_ratio: 1, enable_groups: ['default'] },
    ];
    fake.on('GET', '/api/pricing', () => ({ body: { success: true, message: '', data: units, group_ratio: { default: 2 }, usable_group: { default: 'd' } } }));
    renderPage(<PricingPage />, { user: makeUser({ group: 'default' }) });
    const rowOf = async (model: string) => within((await screen.findByText(model)).closest('tr')!);

    const dallE = await rowOf('dall-e-3');
    expect(dallE.getByText('按张计费')).toBeInTheDocument();
    expect(dallE.getByText('$0.08 / 张')).toBeInTheDocument();
    const note = '按尺寸和质量相乘：256×256 ×0.4，512×512 ×0.45，1024×1792 或 1792×1024 ×2；dall-e-3 的 hd ×2（大尺寸 ×1.5）；再乘以张数 n';
    await userEvent.hover(dallE.getByLabelText(note));
    expect(await screen.findByRole('tooltip')).toHaveTextContent(note);

    const flux = await rowOf('flux-dev');
    expect(flux.getByText('按张计费')).toBeInTheDocument();
    expect(flux.getByText('$0.08 / 张')).toBeInTheDocument();
    expect(flux.getByText('$0.0025 × 模型倍率 16 × 分组倍率 2')).toBeInTheDocument();
    expect(flux.queryByText(/^补全倍率/)).not.toBeInTheDocument();

    const gptImage = await rowOf('gpt-image-1');
    expect(gptImage.getByText('按量计费')).toBeInTheDocument();
    expect(gptImage.getByText('提示 $10 / 1M tokens')).toBeInTheDocument();
    expect(gptImage.getByText('补全 $80 / 1M tokens')).toBeInTheDocument();

    const tts = await rowOf('tts-1');
    expect(tts.getByText('按字符计费')).toBeInTheDocument();
    expect(tts.getByText('$30 / 1M 字符')).toBeInTheDocument();
    expect(tts.getByLabelText('语音合成按输入文本的字符数计费：每个字符计 1 个提示 token')).toBeInTheDocument();

    const whisper = await rowOf('whisper-1');
    expect(whisper.getByText('按时长计费')).toBeInTheDocument();
    expect(whisper.getByText('$0.06 / 分钟')).toBeInTheDocument();
    expect(
      whisper.getByLabelText('按音频时长计费：1 分钟 = 1,000 tokens；上游报告 token 用量时按量计费：提示 $60 / 1M tokens，补全 $60 / 1M tokens'),
    ).toBeInTheDocument();
  });

  it('names the units in English', async () => {
    const units = [
      { model_name: 'dall-e-3', quota_type: 1, model_ratio: 0, model_price: 0.04, completion_ratio: 0, enable_groups: ['default'] },
      { model_name: 'tts-1-hd', quota_type: 0, model_ratio: 15, model_price: 0, completion_ratio: 1, enable_groups: ['default'] },
      { model_name: 'gpt-4o-transcribe', quota_type: 0, model_ratio: 1.25, model_price: 0, completion_ratio: 4, enable_groups: ['default'] },
    ];
    fake.on('GET', '/api/pricing', () => ({ body: { success: true, message: '', data: units, group_ratio: { default: 1 }, usable_group: { default: 'd' } } }));
    renderPage(<PricingPage />, { locale: 'en-US' });
    expect(within((await screen.findByText('dall-e-3')).closest('tr')!).getByText('$0.04 / image')).toBeInTheDocument();
    expect(within(screen.getByText('tts-1-hd').closest('tr')!).getByText('$30 / 1M characters')).toBeInTheDocument();
    const transcribe = within(screen.getByText('gpt-4o-transcribe').closest('tr')!);
    expect(transcribe.getByText('Per minute of audio')).toBeInTheDocument();
    expect(transcribe.getByText('$0.0025 / minute')).toBeInTheDocument();
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
