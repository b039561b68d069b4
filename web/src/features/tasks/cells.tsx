import { Image, Progress, Space, Tag, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { toMilliseconds } from '../logs/time';

/** docs/product.md section 9: a drawing (and task) taking over 60 s shows red. */
export const SLOW_TASK_SECONDS = 60;

/** Seconds from submit to finish with one decimal; null until the task finished. */
export function taskSeconds(submit: number, finish: number): number | null {
  if (!submit || !finish || submit <= 0 || finish <= 0) return null;
  return Math.round((toMilliseconds(finish) - toMilliseconds(submit)) / 100) / 10;
}

export function DurationTag({ submit, finish }: { submit: number; finish: number }) {
  const intl = useIntl();
  const seconds = taskSeconds(submit, finish);
  if (seconds === null) return <span>-</span>;
  return (
    <Tag color={seconds > SLOW_TASK_SECONDS ? 'red' : 'green'}>
      {intl.formatMessage({ id: 'pages.tasks.seconds', defaultMessage: '{value} 秒' }, { value: seconds })}
    </Tag>
  );
}

/** "50%" (or a bare number) as a progress bar. */
export function progressPercent(progress: string | number | null | undefined): number {
  const value = typeof progress === 'number' ? progress : Number.parseFloat(String(progress ?? '').replace('%', ''));
  return Number.isFinite(value) ? Math.min(Math.max(value, 0), 100) : 0;
}

export function ProgressCell({ progress }: { progress: string }) {
  if (!progress) return <span>-</span>;
  return <Progress percent={progressPercent(progress)} size="small" style={{ minWidth: 100 }} />;
}

/** Only web addresses are shown or linked; anything else (javascript:, data:) is not. */
export function safeImageUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

export function ImageCell({ url }: { url: string }) {
  const intl = useIntl();
  const safe = url ? safeImageUrl(url) : null;
  if (!safe) return <span>{intl.formatMessage({ id: 'common.none', defaultMessage: '无' })}</span>;
  return (
    <Space>
      <Image
        src={safe}
        width={48}
        height={48}
        style={{ objectFit: 'cover' }}
        alt={intl.formatMessage({ id: 'pages.drawing.column.image', defaultMessage: '结果图片' })}
      />
      <Typography.Link href={safe} target="_blank" rel="noopener noreferrer">
        {intl.formatMessage({ id: 'pages.drawing.openImage', defaultMessage: '打开' })}
      </Typography.Link>
    </Space>
  );
}

/** Long text (prompts, failure reasons) clipped to two lines, whole on hover; "无" when empty. */
export function TextCell({ text }: { text: string }) {
  const intl = useIntl();
  if (!text) return <span>{intl.formatMessage({ id: 'common.none', defaultMessage: '无' })}</span>;
  return (
    <Typography.Paragraph ellipsis={{ rows: 2, tooltip: text }} style={{ marginBottom: 0, maxWidth: 240 }}>
      {text}
    </Typography.Paragraph>
  );
}
