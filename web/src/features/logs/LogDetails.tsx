import type { ReactNode } from 'react';
import { Descriptions, Tag, Typography } from 'antd';
import { DEFAULT_CREATE_CACHE_RATIO, type LogView } from '@aigw/contracts';
import { useText } from '../../app/use-text';
import {
  audioTokens,
  cacheTokens,
  firstTokenSeconds,
  formatDollars,
  formatRatio,
  formulaCost,
  imagePricing,
  isFixedPrice,
  parseOther,
  retryCount,
  retryPath,
} from './log-other';

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * A log row's details (the expanded row): the request id, ratios or price, what kind of call it was
 * (images with their multipliers, speech, transcription, a realtime response), cache reads and
 * writes, extras present, and the formula whose result is the row's charge.
 */
export function LogDetails({ row, admin }: { row: LogView; admin: boolean }) {
  const t = useText();
  const other = parseOther(row.other);
  const fixed = isFixedPrice(other);
  const image = imagePricing(other);
  const { cached, written } = cacheTokens(other);
  const items: Array<{ key: string; label: string; children: ReactNode }> = [];
  const add = (key: string, label: string, children: ReactNode) => items.push({ key, label, children });

  // The id the relay answered with (X-Oneapi-Request-Id, "request id: …" in errors): what support asks for.
  if (row.request_id) add('requestId', t('pages.logs.detail.requestId', '请求 ID'), <Typography.Text copyable>{row.request_id}</Typography.Text>);
  if (fixed) {
    add(
      'modelPrice',
      t('pages.logs.detail.modelPrice', '模型价格'),
      image
        ? t('pages.logs.detail.perImage', '{price} / 张', { price: `$${formatRatio(other.model_price!)}` })
        : t('pages.logs.detail.perCall', '{price} / 次', { price: `$${formatRatio(other.model_price!)}` }),
    );
    // An image model priced by ratio only: 0.0025 USD × its ratio per image.
    if (image && image.modelRatio !== null) add('modelRatio', t('pages.logs.detail.modelRatio', '模型倍率'), formatRatio(image.modelRatio));
  } else {
    if (isNumber(other.model_ratio)) add('modelRatio', t('pages.logs.detail.modelRatio', '模型倍率'), formatRatio(other.model_ratio));
    if (isNumber(other.completion_ratio)) add('completionRatio', t('pages.logs.detail.completionRatio', '补全倍率'), formatRatio(other.completion_ratio));
  }
  if (isNumber(other.group_ratio)) add('groupRatio', t('pages.logs.detail.groupRatio', '分组倍率'), formatRatio(other.group_ratio));
  if (isNumber(other.cache_ratio)) add('cacheRatio', t('pages.logs.detail.cacheRatio', '缓存倍率'), formatRatio(other.cache_ratio));
  if (cached > 0) add('cacheTokens', t('pages.logs.detail.cacheTokens', '缓存 Tokens'), cached);
  if (written > 0) add('cacheCreationTokens', t('pages.logs.detail.cacheCreationTokens', '缓存创建 Tokens'), written);
  if (written > 0 && isNumber(other.cache_creation_ratio)) {
    add('cacheCreationRatio', t('pages.logs.detail.cacheCreationRatio', '缓存创建倍率'), formatRatio(other.cache_creation_ratio));
  }
  if (other.image === true) {
    if (isNumber(other.image_count)) add('imageCount', t('pages.logs.detail.imageCount', '图片数量'), other.image_count);
    if (isNumber(other.image_size_ratio)) add('imageSizeRatio', t('pages.logs.detail.imageSizeRatio', '尺寸倍率'), formatRatio(other.image_size_ratio));
    if (isNumber(other.image_quality_ratio)) {
      add('imageQualityRatio', t('pages.logs.detail.imageQualityRatio', '质量倍率'), formatRatio(other.image_quality_ratio));
    }
    // gpt-image with only a ratio: the tokens it reported, at the model's ratios.
    if (!image) add('imageTokens', t('pages.logs.detail.imageBilling', '图片计费'), t('pages.logs.detail.imageByTokens', '按上游报告的 Tokens 计费'));
  }
  if (other.speech === true) add('speech', t('pages.logs.detail.speech', '语音合成'), t('pages.logs.detail.speechNote', '提示 Tokens = 输入文本的字符数'));
  if (other.transcription === true) {
    add(
      'transcription',
      t('pages.logs.detail.transcription', '语音转写'),
      t('pages.logs.detail.transcriptionNote', '按音频时长计费时，每分钟音频计 1,000 提示 Tokens；否则按上游报告的用量'),
    );
  }
  if (other.ws === true) {
    add('realtime', t('pages.logs.detail.session', '会话'), <Tag color="magenta">{t('pages.logs.detail.realtime', '实时（WebSocket）')}</Tag>);
  }
  if (isNumber(other.audio_ratio)) add('audioRatio', t('pages.logs.detail.audioRatio', '音频倍率'), formatRatio(other.audio_ratio));
  if (isNumber(other.audio_completion_ratio)) {
    add('audioCompletionRatio', t('pages.logs.detail.audioCompletionRatio', '音频补全倍率'), formatRatio(other.audio_completion_ratio));
  }
  if (isNumber(other.audio_input)) add('audioInput', t('pages.logs.detail.audioInput', '语音输入'), other.audio_input);
  if (isNumber(other.audio_output)) add('audioOutput', t('pages.logs.detail.audioOutput', '语音输出'), other.audio_output);
  if (isNumber(other.text_input)) add('textInput', t('pages.logs.detail.textInput', '文字输入'), other.text_input);
  if (isNumber(other.text_output)) add('textOutput', t('pages.logs.detail.textOutput', '文字输出'), other.text_output);
  if (other.is_model_mapped && other.upstream_model_name) {
    add('upstreamModel', t('pages.logs.detail.upstreamModel', '实际模型'), other.upstream_model_name);
  }

  const frt = firstTokenSeconds(other);
  if (frt !== null) add('frt', t('pages.logs.detail.firstResponse', '首字时间'), t('pages.logs.seconds', '{value} s', { value: frt }));
  // Users' rows carry no admin_info (it names upstream channels), so retries are an admin detail.
  const path = retryPath(other);
  if (admin && path) {
    add('retry', t('pages.logs.detail.retries', '重试'), t('pages.logs.detail.retriesValue', '{count} 次（渠道：{path}）', { count: retryCount(other), path }));
  }
  if (row.content) add('content', t('pages.logs.detail.content', '日志详情'), row.content);

  const cost = formulaCost(other, row.prompt_tokens, row.completion_tokens);
  if (cost !== null) {
    const groupRatio = formatRatio(other.group_ratio ?? 1);
    let formula: string;
    let billing: string;
    if (image) {
      const values = {
        price: `$${formatRatio(image.price)}`,
        modelRatio: formatRatio(image.modelRatio ?? 1),
        sizeRatio: formatRatio(image.sizeRatio),
        qualityRatio: formatRatio(image.qualityRatio),
        count: image.count,
        groupRatio,
        cost: formatDollars(cost),
      };
      formula =
        image.modelRatio === null
          ? t(
              'pages.logs.detail.formula.image',
              '模型价格 {price} × 尺寸倍率 {sizeRatio} × 质量倍率 {qualityRatio} × 数量 {count} × 分组倍率 {groupRatio} = {cost}',
              values,
            )
          : t(
              'pages.logs.detail.formula.imageRatio',
              '{price} × 模型倍率 {modelRatio} × 尺寸倍率 {sizeRatio} × 质量倍率 {qualityRatio} × 数量 {count} × 分组倍率 {groupRatio} = {cost}',
              values,
            );
      billing = t('pages.logs.detail.billing.image', '计费过程（按张计费）');
    } else if (fixed) {
      formula = t('pages.logs.detail.formula.fixed', '模型价格 {price} × 分组倍率 {groupRatio} = {cost}', {
        price: `$${formatRatio(other.model_price!)}`,
        groupRatio,
        cost: formatDollars(cost),
      });
      billing = t('pages.logs.detail.billing.fixed', '计费过程（按次计费）');
    } else {
      // Cache reads and writes are part of the prompt, billed at their own ratios instead: the
      // prompt's figure carries their terms ("1000 − 缓存 200 + 缓存 200 × 缓存倍率 0.5"), as the
      // relay splits them (the contracts' quotaForUsage: cached tokens are text first).
      const cacheRatio = formatRatio(other.cache_ratio ?? 1);
      const cachedTerm = (count: number) =>
        t('pages.logs.detail.formula.cached', '− 缓存 {cached} + 缓存 {cached} × 缓存倍率 {cacheRatio}', { cached: count, cacheRatio });
      const writtenTerm = (count: number) =>
        t('pages.logs.detail.formula.written', '− 缓存创建 {written} + 缓存创建 {written} × 缓存创建倍率 {createCacheRatio}', {
          written: count,
          createCacheRatio: formatRatio(other.cache_creation_ratio ?? DEFAULT_CREATE_CACHE_RATIO),
        });
      const withTerms = (count: number, cachedCount: number, writtenCount: number) =>
        [String(count), cachedCount > 0 ? cachedTerm(cachedCount) : '', writtenCount > 0 ? writtenTerm(writtenCount) : ''].filter(Boolean).join(' ');
      const audio = audioTokens(other);
      const prompt = row.prompt_tokens;
      const audioPrompt = Math.min(audio?.input ?? 0, prompt);
      const textPrompt = prompt - audioPrompt;
      const cachedAll = Math.min(cached, prompt);
      const cachedAudio = Math.min(Math.max(cachedAll - textPrompt, 0), audioPrompt);
      const cachedText = Math.min(cachedAll - cachedAudio, textPrompt);
      const writtenText = Math.min(written, textPrompt - cachedText);
      const values = {
        groupRatio,
        modelRatio: formatRatio(other.model_ratio!),
        prompt: withTerms(textPrompt, cachedText, writtenText),
        completion: row.completion_tokens,
        completionRatio: formatRatio(other.completion_ratio ?? 1),
        cost: formatDollars(cost),
      };
      formula = audio
        ? t(
            'pages.logs.detail.formula.audio',
            '分组倍率 {groupRatio} × 模型倍率 {modelRatio} × (文字提示 {prompt} + 文字补全 {completion} × 补全倍率 {completionRatio} + 音频输入 {audioInput} × 音频倍率 {audioRatio} + 音频输出 {audioOutput} × 音频倍率 {audioRatio} × 音频补全倍率 {audioCompletionRatio}) / 500000 = {cost}',
            {
              ...values,
              completion: row.completion_tokens - Math.min(audio.output, row.completion_tokens),
              audioInput: cachedAudio > 0 ? `(${withTerms(audioPrompt, cachedAudio, 0)})` : audioPrompt,
              audioOutput: Math.min(audio.output, row.completion_tokens),
              audioRatio: formatRatio(audio.ratio),
              audioCompletionRatio: formatRatio(audio.completionRatio),
            },
          )
        : t(
            'pages.logs.detail.formula.ratio',
            '分组倍率 {groupRatio} × 模型倍率 {modelRatio} × (提示 {prompt} + 补全 {completion} × 补全倍率 {completionRatio}) / 500000 = {cost}',
            values,
          );
      billing = t('pages.logs.detail.billing.ratio', '计费过程（按量计费）');
    }
    add('formula', billing, formula);
  }

  if (items.length === 0) return <span>{t('pages.logs.detail.empty', '暂无计费详情')}</span>;
  return <Descriptions size="small" bordered column={1} items={items} />;
}
