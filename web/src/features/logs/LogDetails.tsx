import type { ReactNode } from 'react';
import { Descriptions, Typography } from 'antd';
import type { LogView } from '@aigw/contracts';
import { useText } from '../../app/use-text';
import { firstTokenSeconds, formatDollars, formatRatio, formulaCost, isFixedPrice, parseOther, retryCount, retryPath } from './log-other';

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** A log row's details (the expanded row): the request id, ratios or price, extras present, the formula. */
export function LogDetails({ row, admin }: { row: LogView; admin: boolean }) {
  const t = useText();
  const other = parseOther(row.other);
  const fixed = isFixedPrice(other);
  const items: Array<{ key: string; label: string; children: ReactNode }> = [];
  const add = (key: string, label: string, children: ReactNode) => items.push({ key, label, children });

  // The id the relay answered with (X-Oneapi-Request-Id, "request id: …" in errors): what support asks for.
  if (row.request_id) add('requestId', t('pages.logs.detail.requestId', '请求 ID'), <Typography.Text copyable>{row.request_id}</Typography.Text>);
  if (fixed) {
    add(
      'modelPrice',
      t('pages.logs.detail.modelPrice', '模型价格'),
      t('pages.logs.detail.perCall', '{price} / 次', { price: `$${formatRatio(other.model_price!)}` }),
    );
  } else {
    if (isNumber(other.model_ratio)) add('modelRatio', t('pages.logs.detail.modelRatio', '模型倍率'), formatRatio(other.model_ratio));
    if (isNumber(other.completion_ratio)) add('completionRatio', t('pages.logs.detail.completionRatio', '补全倍率'), formatRatio(other.completion_ratio));
  }
  if (isNumber(other.group_ratio)) add('groupRatio', t('pages.logs.detail.groupRatio', '分组倍率'), formatRatio(other.group_ratio));
  if (isNumber(other.cache_ratio)) add('cacheRatio', t('pages.logs.detail.cacheRatio', '缓存倍率'), formatRatio(other.cache_ratio));
  if (isNumber(other.cache_tokens) && other.cache_tokens > 0) add('cacheTokens', t('pages.logs.detail.cacheTokens', '缓存 Tokens'), other.cache_tokens);
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
    const formula = fixed
      ? t('pages.logs.detail.formula.fixed', '模型价格 {price} × 分组倍率 {groupRatio} = {cost}', {
          price: `$${formatRatio(other.model_price!)}`,
          groupRatio,
          cost: formatDollars(cost),
        })
      : t(
          'pages.logs.detail.formula.ratio',
          '分组倍率 {groupRatio} × 模型倍率 {modelRatio} × (提示 {prompt} + 补全 {completion} × 补全倍率 {completionRatio}) / 500000 = {cost}',
          {
            groupRatio,
            modelRatio: formatRatio(other.model_ratio!),
            prompt: row.prompt_tokens,
            completion: row.completion_tokens,
            completionRatio: formatRatio(other.completion_ratio ?? 1),
            cost: formatDollars(cost),
          },
        );
    add(
      'formula',
      fixed ? t('pages.logs.detail.billing.fixed', '计费过程（按次计费）') : t('pages.logs.detail.billing.ratio', '计费过程（按量计费）'),
      formula,
    );
  }

  if (items.length === 0) return <span>{t('pages.logs.detail.empty', '暂无计费详情')}</span>;
  return <Descriptions size="small" bordered column={1} items={items} />;
}
