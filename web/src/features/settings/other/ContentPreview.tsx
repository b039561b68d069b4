import type { ReactNode } from 'react';
import { Form, Typography, type FormInstance } from 'antd';
import type { OptionKey } from '@aigw/contracts';
import type { OptionFormValues } from '../OptionSection';
import { useText } from '../../../app/use-text';

interface ContentPreviewProps {
  form: FormInstance<OptionFormValues>;
  name: OptionKey;
  /** The preview of the current (non-blank) text; every renderer given here sanitizes. */
  render: (text: string) => ReactNode;
}

/** A live preview of what an option's text will look like, following the form as it is typed. */
export function ContentPreview({ form, name, render }: ContentPreviewProps) {
  const t = useText();
  const value = Form.useWatch(name, form);
  const text = typeof value === 'string' ? value : '';
  if (!text.trim()) return null;
  return (
    <Form.Item label={t('pages.settings.other.preview', '预览')}>
      <div
        data-testid={`preview-${name}`}
        style={{ maxHeight: 480, overflow: 'auto', padding: 12, border: '1px dashed rgba(128, 128, 128, 0.4)', borderRadius: 8 }}
      >
        {render(text)}
      </div>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('pages.settings.other.preview.help', '预览已过滤脚本等不安全内容，页面上的显示与此一致')}
      </Typography.Text>
    </Form.Item>
  );
}
