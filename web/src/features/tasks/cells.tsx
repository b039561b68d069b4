import { Flex, Image, Progress, Space, Tag, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useText } from '../../app/use-text';
import { toMilliseconds } from '../logs/time';
import { formatClipDuration, parseTaskResult, type Lyrics, type MusicClip } from './suno-result';

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

/**
 * Only web addresses are shown or linked: http(s) ones, and a path on this server (the image
 * proxy answers `/mj/image/<id>`), resolved against this origin. Anything else (javascript:,
 * data:, a protocol-relative `//host`, a bare word) is not.
 */
export function safeWebUrl(url: string, origin: string = window.location.origin): string | null {
  const trimmed = url.trim();
  try {
    if (trimmed.startsWith('/')) {
      const resolved = new URL(trimmed, origin);
      return resolved.origin === new URL(origin).origin ? resolved.href : null;
    }
    const parsed = new URL(trimmed);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

export function ImageCell({ url }: { url: string }) {
  const intl = useIntl();
  const safe = url ? safeWebUrl(url) : null;
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

/** A song's clips, one a line: title, length and a link to its audio (web addresses only). */
export function MusicClipsCell({ clips }: { clips: MusicClip[] }) {
  const t = useText();
  return (
    <Flex vertical gap={4} style={{ maxWidth: 320 }}>
      {clips.map((clip, index) => {
        const title = clip.title || t('pages.tasks.result.untitled', '未命名');
        const audio = clip.audioUrl ? safeWebUrl(clip.audioUrl) : null;
        return (
          <Space key={clip.id || index} size={8} wrap>
            <Typography.Text strong ellipsis={{ tooltip: title }} style={{ maxWidth: 160 }}>
              {title}
            </Typography.Text>
            {clip.duration !== null && <Typography.Text type="secondary">{formatClipDuration(clip.duration)}</Typography.Text>}
            {audio && (
              <Typography.Link href={audio} target="_blank" rel="noopener noreferrer" aria-label={t('pages.tasks.result.audioOf', '{title} 的音频', { title })}>
                {t('pages.tasks.result.audio', '音频')}
              </Typography.Link>
            )}
            {clip.errorMessage && <Typography.Text type="danger">{clip.errorMessage}</Typography.Text>}
          </Space>
        );
      })}
    </Flex>
  );
}

/** Lyrics: the title, then the text clipped to three lines, whole when expanded. */
export function LyricsCell({ lyrics }: { lyrics: Lyrics }) {
  const t = useText();
  if (!lyrics.title && !lyrics.text) return <span>{t('common.none', '无')}</span>;
  return (
    <Flex vertical gap={4} style={{ maxWidth: 320 }}>
      {lyrics.title && <Typography.Text strong>{lyrics.title}</Typography.Text>}
      {lyrics.text && (
        <Typography.Paragraph ellipsis={{ rows: 3, expandable: 'collapsible' }} style={{ marginBottom: 0, whiteSpace: 'pre-line' }}>
          {lyrics.text}
        </Typography.Paragraph>
      )}
    </Flex>
  );
}

/** What an async task made (its `data`): the song's clips or the lyrics; "无" before there is any. */
export function TaskResultCell({ data }: { data: string | undefined }) {
  const t = useText();
  const result = parseTaskResult(data);
  switch (result.kind) {
    case 'music':
      return <MusicClipsCell clips={result.clips} />;
    case 'lyrics':
      return <LyricsCell lyrics={result.lyrics} />;
    case 'none':
      return <span>{t('common.none', '无')}</span>;
  }
}
