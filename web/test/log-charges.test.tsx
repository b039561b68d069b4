import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { LogType, quotaForCall, quotaForUsage, type LogView } from '@aigw/contracts';
import { LogsPage } from '../src/features/logs/LogsPage';
import { formulaCost, formulaQuota, imagePricing } from '../src/features/logs/log-other';
import { makeUser, renderPage, setupFakeApi } from './render';

/** The relay's new kinds of charge in the log details (issue 12): images, cache writes, speech, transcription, realtime. */

const user = makeUser({ id: 2, username: 'alice' });
const fake = setupFakeApi();

let nextId = 1;
function makeLog(overrides: Partial<LogView>, other: Record<string, unknown>): LogView {
  return {
    id: nextId++,
    created_at: 1_700_000_000,
    type: LogType.Consume,
    content: '',
    user_id: 2,
    username: 'alice',
    token_id: 3,
    token_name: 'my-token',
    model_name: 'gpt-4o',
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: 5,
    is_stream: false,
    channel: 3,
    group: 'default',
    request_id: '',
    other: JSON.stringify({ frt: -1, cache_tokens: 0, usage_source: 'upstream', ...other }),
    ...overrides,
  };
}

function answer(items: LogView[]) {
  fake.ok('GET', '/api/log/self', { items, total: items.length, page: 1, page_size: 10 });
  fake.ok('GET', '/api/log/self/stat', { quota: 0, rpm: 0, tpm: 0 });
}

/** The value cell beside a Descriptions label. */
const valueOf = (label: HTMLElement) => label.closest('.ant-descriptions-item-label')!.nextElementSibling as HTMLElement;

/** Renders one row, expands it, and gives its details table and its cost cell's text. */
async function expand(row: LogView, locale?: 'en-US') {
  answer([row]);
  renderPage(<LogsPage />, { route: '/log', user, locale });
  await screen.findByText('my-token');
  await userEvent.click(screen.getByLabelText(locale ? 'Expand row' : '展开行'));
  const billing = await screen.findByText(locale ? /^Billing \(/ : /^计费过程（/);
  const rowText = screen.getByText('my-token').closest('tr')!.textContent;
  // Whatever the kind, the formula's result is the row's cost (its quota / 500000).
  const formulaCost = /= (\$\d+\.\d{6})$/.exec(valueOf(billing).textContent)?.[1];
  expect(formulaCost).toBeDefined();
  expect(rowText).toContain(formulaCost);
  return { details: within(billing.closest('table')!), rowText };
}

// The rows as the relay writes them (services/relay/src/operations/images.ts, metering.ts, relay-call.ts).
const dallE3 = makeLog(
  { model_name: 'dall-e-3', quota: 120_000, content: 'model price 0.04, group ratio 1.00, image size 1792x1024, quality hd, n 2' },
  { model_price: 0.04, group_ratio: 1, image: true, image_count: 2, image_size_ratio: 2, image_quality_ratio: 1.5 },
);
const fluxByRatio = makeLog(
  {
    model_name: 'flux-dev',
    quota: 40_500,
    content: 'model price 0.0025, group ratio 1.50, image size 512x512, quality default, n 3, 0.0025 USD × model ratio 16 per image',
  },
  { model_price: 0.0025, model_ratio: 16, group_ratio: 1.5, image: true, image_count: 3, image_size_ratio: 0.45, image_quality_ratio: 1 },
);
const gptImage = makeLog(
  {
    model_name: 'gpt-image-1',
    quota: 166_650,
    prompt_tokens: 50,
    completion_tokens: 4160,
    content: 'model ratio 5.00, completion ratio 8.00, group ratio 1.00, image size 1024x1024, quality high, n 1, billed by tokens',
  },
  { model_ratio: 5, completion_ratio: 8, group_ratio: 1, cache_ratio: 1, model_price: -1, image: true, image_count: 1 },
);
const claudeCache = makeLog(
  {
    model_name: 'claude-3-5-sonnet-20241022',
    quota: 5925,
    prompt_tokens: 4000,
    completion_tokens: 300,
    content: 'model ratio 1.50, completion ratio 5.00, group ratio 1.00',
  },
  {
    model_ratio: 1.5,
    completion_ratio: 5,
    group_ratio: 1,
    cache_ratio: 0.1,
    model_price: -1,
    cache_tokens: 2000,
    cache_creation_tokens: 1000,
    cache_creation_ratio: 1.25,
  },
);

describe('log charges: the formula is the relay’s', () => {
  it('prices an image per image, exactly, and its cost is the row’s quota', () => {
    expect(imagePricing(JSON.parse(dallE3.other))).toEqual({ price: 0.04, modelRatio: null, sizeRatio: 2, qualityRatio: 1.5, count: 2 });
    expect(formulaQuota(JSON.parse(dallE3.other), 0, 0)).toBe(dallE3.quota);
    expect(formulaQuota(JSON.parse(fluxByRatio.other), 0, 0)).toBe(fluxByRatio.quota);
    expect(formulaCost(JSON.parse(fluxByRatio.other), 0, 0)).toBe(0.081);
    // The relay's own product (0.0025 × 16 × 0.45 × 3 × 1.5 × 500000), evaluated on decimals.
    expect(quotaForCall({ modelPrice: 0.0025, multipliers: [16, 0.45, 1, 3], groupRatio: 1.5, quotaPerUnit: 500_000 })).toBe(fluxByRatio.quota);
  });

  it('bills cache reads and writes at their ratios, and rounds as the relay does', () => {
    expect(formulaQuota(JSON.parse(claudeCache.other), 4000, 300)).toBe(claudeCache.quota);
    expect(formulaQuota(JSON.parse(gptImage.other), 50, 4160)).toBe(gptImage.quota);
    // 10 × 0.075 = 0.75 quota: rounded to 1, which is what the row holds (a float formula would print $0.0000015).
    expect(formulaCost({ model_ratio: 0.075, completion_ratio: 1, group_ratio: 1, model_price: -1 }, 10, 0)).toBe(0.000002);
    // Written tokens without a logged ratio: 1.25, the relay's default.
    expect(formulaQuota({ model_ratio: 1, completion_ratio: 1, group_ratio: 1, model_price: -1, cache_creation_tokens: 100 }, 100, 0)).toBe(125);
  });
});

describe('log charges: the details', () => {
  it('shows a fixed-price image request with its count, size and quality ratios and the per-image formula', async () => {
    const { details, rowText } = await expand(dallE3);
    expect(rowText).toContain('$0.240000');
    expect(valueOf(details.getByText('模型价格'))).toHaveTextContent('$0.04 / 张');
    expect(valueOf(details.getByText('图片数量'))).toHaveTextContent('2');
    expect(valueOf(details.getByText('尺寸倍率'))).toHaveTextContent('2');
    expect(valueOf(details.getByText('质量倍率'))).toHaveTextContent('1.5');
    expect(valueOf(details.getByText('计费过程（按张计费）'))).toHaveTextContent(
      '模型价格 $0.04 × 尺寸倍率 2 × 质量倍率 1.5 × 数量 2 × 分组倍率 1 = $0.240000',
    );
    expect(valueOf(details.getByText('日志详情'))).toHaveTextContent('model price 0.04, group ratio 1.00, image size 1792x1024, quality hd, n 2');
    expect(details.queryByText('模型倍率')).not.toBeInTheDocument();
  });

  it('shows an image model priced by ratio as 0.0025 × its ratio per image', async () => {
    const { details, rowText } = await expand(fluxByRatio);
    expect(rowText).toContain('$0.081000');
    expect(valueOf(details.getByText('模型价格'))).toHaveTextContent('$0.0025 / 张');
    expect(valueOf(details.getByText('模型倍率'))).toHaveTextContent('16');
    expect(valueOf(details.getByText('图片数量'))).toHaveTextContent('3');
    expect(valueOf(details.getByText('尺寸倍率'))).toHaveTextContent('0.45');
    expect(valueOf(details.getByText('计费过程（按张计费）'))).toHaveTextContent(
      '$0.0025 × 模型倍率 16 × 尺寸倍率 0.45 × 质量倍率 1 × 数量 3 × 分组倍率 1.5 = $0.081000',
    );
  });

  it('shows a token-billed gpt-image request with its count and the pay-as-you-go formula', async () => {
    const { details, rowText } = await expand(gptImage);
    expect(rowText).toContain('$0.333300');
    expect(valueOf(details.getByText('图片数量'))).toHaveTextContent('1');
    expect(valueOf(details.getByText('图片计费'))).toHaveTextContent('按上游报告的 Tokens 计费');
    expect(details.queryByText('尺寸倍率')).not.toBeInTheDocument();
    expect(valueOf(details.getByText('计费过程（按量计费）'))).toHaveTextContent(
      '分组倍率 1 × 模型倍率 5 × (提示 50 + 补全 4160 × 补全倍率 8) / 500000 = $0.333300',
    );
  });

  it('puts cache reads and writes into the pay-as-you-go formula', async () => {
    const { details, rowText } = await expand(claudeCache);
    expect(rowText).toContain('$0.011850');
    expect(valueOf(details.getByText('缓存 Tokens'))).toHaveTextContent('2000');
    expect(valueOf(details.getByText('缓存倍率'))).toHaveTextContent('0.1');
    expect(valueOf(details.getByText('缓存创建 Tokens'))).toHaveTextContent('1000');
    expect(valueOf(details.getByText('缓存创建倍率'))).toHaveTextContent('1.25');
    expect(valueOf(details.getByText('计费过程（按量计费）'))).toHaveTextContent(
      '分组倍率 1 × 模型倍率 1.5 × (提示 4000 − 缓存 2000 + 缓存 2000 × 缓存倍率 0.1 − 缓存创建 1000 + 缓存创建 1000 × 缓存创建倍率 1.25 + 补全 300 × 补全倍率 5) / 500000 = $0.011850',
    );
  });

  it('shows cache writes alone without a cache-read term', async () => {
    const row = makeLog(
      { model_name: 'claude-3-5-haiku', quota: 1700, prompt_tokens: 1000, completion_tokens: 100 },
      { model_ratio: 1, completion_ratio: 5, group_ratio: 1, cache_ratio: 1, model_price: -1, cache_creation_tokens: 800, cache_creation_ratio: 1.25 },
    );
    const { details, rowText } = await expand(row);
    expect(rowText).toContain('$0.003400');
    expect(details.queryByText('缓存 Tokens')).not.toBeInTheDocument();
    expect(valueOf(details.getByText('计费过程（按量计费）'))).toHaveTextContent(
      '分组倍率 1 × 模型倍率 1 × (提示 1000 − 缓存创建 800 + 缓存创建 800 × 缓存创建倍率 1.25 + 补全 100 × 补全倍率 5) / 500000 = $0.003400',
    );
  });

  it('notes that speech bills the input characters as prompt tokens', async () => {
    const row = makeLog(
      {
        model_name: 'tts-1',
        quota: 1500,
        prompt_tokens: 200,
        content: 'model ratio 7.50, completion ratio 1.00, group ratio 1.00, billed by input characters',
      },
      { model_ratio: 7.5, completion_ratio: 1, group_ratio: 1, cache_ratio: 1, model_price: -1, speech: true },
    );
    const { details, rowText } = await expand(row);
    expect(rowText).toContain('$0.003000');
    expect(valueOf(details.getByText('语音合成'))).toHaveTextContent('提示 Tokens = 输入文本的字符数');
    expect(valueOf(details.getByText('计费过程（按量计费）'))).toHaveTextContent(
      '分组倍率 1 × 模型倍率 7.5 × (提示 200 + 补全 0 × 补全倍率 1) / 500000 = $0.003000',
    );
  });

  it('notes that a transcription counts 1,000 tokens per audio minute', async () => {
    const row = makeLog(
      { model_name: 'whisper-1', quota: 15_000, prompt_tokens: 1000 },
      { model_ratio: 15, completion_ratio: 1, group_ratio: 1, cache_ratio: 1, model_price: -1, transcription: true },
    );
    const { details, rowText } = await expand(row);
    expect(rowText).toContain('$0.030000');
    expect(valueOf(details.getByText('语音转写'))).toHaveTextContent('按音频时长计费时，每分钟音频计 1,000 提示 Tokens；否则按上游报告的用量');
    expect(valueOf(details.getByText('计费过程（按量计费）'))).toHaveTextContent(
      '分组倍率 1 × 模型倍率 15 × (提示 1000 + 补全 0 × 补全倍率 1) / 500000 = $0.030000',
    );
  });

  it('marks a realtime session’s response in the row and its details', async () => {
    const row = makeLog(
      { model_name: 'gpt-4o-realtime-preview', quota: 750, prompt_tokens: 100, completion_tokens: 50 },
      { model_ratio: 2.5, completion_ratio: 4, group_ratio: 1, cache_ratio: 1, model_price: -1, ws: true },
    );
    const { details, rowText } = await expand(row);
    expect(rowText).toContain('实时');
    expect(rowText).toContain('$0.001500');
    expect(valueOf(details.getByText('会话'))).toHaveTextContent('实时（WebSocket）');
    expect(valueOf(details.getByText('计费过程（按量计费）'))).toHaveTextContent(
      '分组倍率 1 × 模型倍率 2.5 × (提示 100 + 补全 50 × 补全倍率 4) / 500000 = $0.001500',
    );
  });

  it('prices a realtime response’s audio tokens at the audio ratios in its formula', async () => {
    // As services/relay/src/realtime/billing.ts writes a response: text and audio counts, the audio ratios.
    const row = makeLog(
      {
        model_name: 'gpt-4o-realtime-preview',
        quota: 62_875,
        prompt_tokens: 1000,
        completion_tokens: 500,
        is_stream: true,
        content: 'model ratio 2.50, completion ratio 4.00, group ratio 1.00, audio ratio 20.00, audio completion ratio 2.00',
      },
      {
        model_ratio: 2.5,
        completion_ratio: 4,
        group_ratio: 1,
        cache_ratio: 0.5,
        model_price: -1,
        cache_tokens: 100,
        ws: true,
        audio: true,
        audio_ratio: 20,
        audio_completion_ratio: 2,
        text_input: 400,
        text_output: 200,
        audio_input: 600,
        audio_output: 300,
      },
    );
    const { details, rowText } = await expand(row);
    expect(rowText).toContain('$0.125750');
    expect(rowText).toContain('实时');
    expect(valueOf(details.getByText('音频倍率'))).toHaveTextContent('20');
    expect(valueOf(details.getByText('计费过程（按量计费）'))).toHaveTextContent(
      '分组倍率 1 × 模型倍率 2.5 × (文字提示 400 − 缓存 100 + 缓存 100 × 缓存倍率 0.5 + 文字补全 200 × 补全倍率 4 + 音频输入 600 × 音频倍率 20 + 音频输出 300 × 音频倍率 20 × 音频补全倍率 2) / 500000 = $0.125750',
    );
  });

  it('takes cached tokens beyond the text prompt as audio, as the relay does without their split', async () => {
    const other = {
      model_ratio: 2.5,
      completion_ratio: 4,
      group_ratio: 1,
      cache_ratio: 0.5,
      model_price: -1,
      cache_tokens: 500,
      ws: true,
      audio_ratio: 20,
      audio_completion_ratio: 2,
      audio_input: 600,
      audio_output: 300,
    };
    const expected = quotaForUsage({
      promptTokens: 1000,
      completionTokens: 500,
      cachedTokens: 500,
      audioPromptTokens: 600,
      audioCompletionTokens: 300,
      modelRatio: 2.5,
      completionRatio: 4,
      cacheRatio: 0.5,
      groupRatio: 1,
      audioRatio: 20,
      audioCompletionRatio: 2,
    });
    expect(expected).toBe(60_000);
    const { details } = await expand(makeLog({ quota: expected, prompt_tokens: 1000, completion_tokens: 500 }, other));
    expect(valueOf(details.getByText('计费过程（按量计费）'))).toHaveTextContent(
      '(文字提示 400 − 缓存 400 + 缓存 400 × 缓存倍率 0.5 + 文字补全 200 × 补全倍率 4 + 音频输入 (600 − 缓存 100 + 缓存 100 × 缓存倍率 0.5) × 音频倍率 20 + 音频输出 300 × 音频倍率 20 × 音频补全倍率 2) / 500000 = $0.120000',
    );
  });

  it('leaves the new facts out of an ordinary row', async () => {
    const row = makeLog(
      { quota: 7500, prompt_tokens: 1000, completion_tokens: 500 },
      { model_ratio: 2.5, completion_ratio: 4, group_ratio: 1, model_price: -1 },
    );
    const { details, rowText } = await expand(row);
    expect(rowText).not.toContain('实时');
    for (const label of ['图片数量', '尺寸倍率', '缓存创建 Tokens', '语音合成', '语音转写', '会话']) expect(details.queryByText(label)).not.toBeInTheDocument();
  });

  it('speaks English', async () => {
    const { details } = await expand(fluxByRatio, 'en-US');
    expect(valueOf(details.getByText('Model price'))).toHaveTextContent('$0.0025 / image');
    expect(valueOf(details.getByText('Images'))).toHaveTextContent('3');
    expect(valueOf(details.getByText('Billing (per image)'))).toHaveTextContent(
      '$0.0025 × model ratio 16 × size ratio 0.45 × quality ratio 1 × count 3 × group ratio 1.5 = $0.081000',
    );
  });

  it('speaks English for cache writes, speech and transcription', async () => {
    const row = makeLog(
      { quota: 4500, prompt_tokens: 1000, completion_tokens: 0 },
      {
        model_ratio: 3,
        completion_ratio: 5,
        group_ratio: 1,
        cache_ratio: 1,
        model_price: -1,
        cache_creation_tokens: 400,
        cache_creation_ratio: 2.25,
        speech: true,
        transcription: true,
      },
    );
    const { details, rowText } = await expand(row, 'en-US');
    expect(rowText).toContain('$0.009000');
    expect(valueOf(details.getByText('Cache write tokens'))).toHaveTextContent('400');
    expect(valueOf(details.getByText('Speech'))).toHaveTextContent('Prompt tokens = characters of the input text');
    expect(valueOf(details.getByText('Transcription'))).toHaveTextContent('1,000 prompt tokens per minute of audio');
    expect(valueOf(details.getByText('Billing (pay as you go)'))).toHaveTextContent(
      'group ratio 1 × model ratio 3 × (prompt 1000 − cache writes 400 + cache writes 400 × cache write ratio 2.25 + completion 0 × completion ratio 5) / 500000 = $0.009000',
    );
  });
});
