import { useEffect, useRef, useState } from 'react';
import { InputNumber, Tag, Tooltip } from 'antd';
import dayjs from 'dayjs';
import { useIntl } from 'react-intl';
import { ChannelStatus } from '@aigw/contracts';

/** `other_info` of an automatically disabled channel: why and when (seconds). */
export function statusReason(otherInfo: string): { reason: string; time: number } | null {
  try {
    const value = JSON.parse(otherInfo) as { status_reason?: unknown; status_time?: unknown };
    if (typeof value.status_reason !== 'string' || !value.status_reason) return null;
    return { reason: value.status_reason, time: typeof value.status_time === 'number' ? value.status_time : 0 };
  } catch {
    return null;
  }
}

export function StatusTag({ status, otherInfo }: { status: number; otherInfo?: string }) {
  const intl = useIntl();
  if (status === ChannelStatus.Enabled) return <Tag color="green">{intl.formatMessage({ id: 'pages.channels.status.enabled', defaultMessage: '已启用' })}</Tag>;
  if (status === ChannelStatus.ManuallyDisabled) {
    return (
      <Tooltip title={intl.formatMessage({ id: 'pages.channels.status.manual.tip', defaultMessage: '本渠道被手动禁用' })}>
        <Tag color="red">{intl.formatMessage({ id: 'pages.channels.status.disabled', defaultMessage: '已禁用' })}</Tag>
      </Tooltip>
    );
  }
  if (status === ChannelStatus.AutoDisabled) {
    const why = otherInfo ? statusReason(otherInfo) : null;
    const tip = (
      <div>
        <div>{intl.formatMessage({ id: 'pages.channels.status.auto.tip', defaultMessage: '本渠道被程序自动禁用' })}</div>
        {why && <div>{intl.formatMessage({ id: 'pages.channels.status.reason', defaultMessage: '原因：{reason}' }, { reason: why.reason })}</div>}
        {why && why.time > 0 && (
          <div>
            {intl.formatMessage(
              { id: 'pages.channels.status.time', defaultMessage: '时间：{time}' },
              { time: dayjs.unix(why.time).format('YYYY-MM-DD HH:mm:ss') },
            )}
          </div>
        )}
      </div>
    );
    return (
      <Tooltip title={tip}>
        <Tag color="gold">{intl.formatMessage({ id: 'pages.channels.status.auto', defaultMessage: '自动禁用' })}</Tag>
      </Tooltip>
    );
  }
  return <Tag>{intl.formatMessage({ id: 'pages.channels.status.unknown', defaultMessage: '未知状态' })}</Tag>;
}

/** docs/product.md section 6: untested grey; up to 1 s green, 3 s lime, 5 s yellow; slower red. */
export function responseTimeColour(milliseconds: number): string {
  if (milliseconds <= 0) return 'default';
  if (milliseconds <= 1000) return 'green';
  if (milliseconds <= 3000) return 'lime';
  if (milliseconds <= 5000) return 'yellow';
  return 'red';
}

export function ResponseTimeTag({ milliseconds, onClick }: { milliseconds: number; onClick?: () => void }) {
  const intl = useIntl();
  const colour = responseTimeColour(milliseconds);
  const text =
    milliseconds > 0
      ? intl.formatMessage({ id: 'pages.channels.responseTime.seconds', defaultMessage: '{time} 秒' }, { time: (milliseconds / 1000).toFixed(2) })
      : intl.formatMessage({ id: 'pages.channels.responseTime.untested', defaultMessage: '未测试' });
  const tag = (
    <Tag color={colour} data-band={colour} style={onClick ? { cursor: 'pointer' } : undefined} onClick={onClick}>
      {text}
    </Tag>
  );
  if (!onClick) return tag;
  return <Tooltip title={intl.formatMessage({ id: 'pages.channels.responseTime.tip', defaultMessage: '点击测试' })}>{tag}</Tooltip>;
}

interface InlineNumberProps {
  value: number;
  /** Lowest value kept; lower input is raised to it (weight 0, priority -999). */
  min: number;
  max: number;
  label: string;
  onSave(value: number): Promise<boolean>;
}

/**
 * Priority or weight edited in the table: saved on Enter or when the field is left, as an
 * integer within the limits; an empty input is ignored and shows the stored value again.
 */
export function InlineNumber({ value, min, max, label, onSave }: InlineNumberProps) {
  const [draft, setDraft] = useState<number | null>(value);
  // Enter and then leaving the field commit the same value once (tag rows update only after a refetch).
  const sent = useRef<number | null>(null);
  useEffect(() => {
    setDraft(value);
    sent.current = null;
  }, [value]);

  const commit = async () => {
    if (draft === null || Number.isNaN(Number(draft))) {
      setDraft(value);
      return;
    }
    const next = Math.min(max, Math.max(min, Math.trunc(Number(draft))));
    setDraft(next);
    if (next === value || next === sent.current) return;
    sent.current = next;
    if (!(await onSave(next))) {
      sent.current = null;
      setDraft(value);
    }
  };

  return (
    <InputNumber<number>
      aria-label={label}
      size="small"
      style={{ width: 80 }}
      value={draft}
      onChange={(next) => setDraft(next)}
      onBlur={() => void commit()}
      onPressEnter={() => void commit()}
    />
  );
}
