import { useState } from 'react';
import { Button, DatePicker, Flex, Input, Space } from 'antd';
import { CalendarOutlined } from '@ant-design/icons';
import dayjs from 'dayjs';
import { useIntl } from 'react-intl';
import { DATE_TIME_FORMAT, expiryText, parseExpiry, type ExpiryShortcut } from './token-rules';

interface ExpiryInputProps {
  id?: string;
  /** yyyy-MM-dd HH:mm:ss, or blank for never. */
  value?: string;
  onChange?: (value: string) => void;
}

/**
 * The expiry as text in the product's format (docs/product.md section 7; so a typed date can be
 * checked and refused), a date-time picker that fills it, and the never / hour / day / month
 * shortcuts.
 */
export function ExpiryInput({ id, value = '', onChange }: ExpiryInputProps) {
  const intl = useIntl();
  const [picking, setPicking] = useState(false);
  const t = (messageId: string, defaultMessage: string) => intl.formatMessage({ id: messageId, defaultMessage });
  const parsed = parseExpiry(value);
  const pickerValue = parsed !== null && parsed !== -1 ? dayjs.unix(parsed) : null;

  const shortcuts: Array<[ExpiryShortcut, string]> = [
    ['never', t('pages.tokens.form.expiry.never', '永不过期')],
    ['hour', t('pages.tokens.form.expiry.hour', '一小时')],
    ['day', t('pages.tokens.form.expiry.day', '一天')],
    ['month', t('pages.tokens.form.expiry.month', '一个月')],
  ];

  return (
    <Flex vertical gap={8}>
      <div style={{ position: 'relative' }}>
        <Space.Compact style={{ width: '100%' }}>
          <Input
            id={id}
            value={value}
            placeholder={t('pages.tokens.form.expiry.placeholder', '永不过期（格式 yyyy-MM-dd HH:mm:ss）')}
            onChange={(event) => onChange?.(event.target.value)}
          />
          <Button aria-label={t('pages.tokens.form.expiry.pick', '选择过期时间')} icon={<CalendarOutlined />} onClick={() => setPicking(true)} />
        </Space.Compact>
        {/* The picker's own input stays invisible: the text field above is the one users read and type in. */}
        <DatePicker
          open={picking}
          onOpenChange={setPicking}
          showTime
          format={DATE_TIME_FORMAT}
          value={pickerValue}
          onChange={(date) => date && onChange?.(date.format(DATE_TIME_FORMAT))}
          style={{ position: 'absolute', inset: 0, visibility: 'hidden' }}
          tabIndex={-1}
        />
      </div>
      <Space wrap size={4}>
        {shortcuts.map(([shortcut, label]) => (
          <Button key={shortcut} size="small" onClick={() => onChange?.(expiryText(shortcut))}>
            {label}
          </Button>
        ))}
      </Space>
    </Flex>
  );
}
