import { useEffect } from 'react';
import { App, Input } from 'antd';
import { useIntl } from 'react-intl';
import { setFeedback, type FeedbackText } from './feedback';

/** Connects `feedback` (used outside React) to antd's themed toasts and dialogs. */
export function FeedbackBridge() {
  const { message, modal } = App.useApp();
  const intl = useIntl();

  useEffect(() => {
    const text = (value: FeedbackText) => (typeof value === 'string' ? value : intl.formatMessage(value));
    setFeedback({
      error: (value) => void message.error(text(value)),
      success: (value) => void message.success(text(value)),
      warning: (value) => void message.warning(text(value)),
      manualCopy: (value) => {
        modal.info({
          title: intl.formatMessage({ id: 'errors.clipboard.title', defaultMessage: '无法复制到剪贴板，请手动复制' }),
          content: <Input.TextArea value={value} readOnly autoSize={{ minRows: 2, maxRows: 10 }} onFocus={(event) => event.target.select()} />,
          okText: intl.formatMessage({ id: 'common.close', defaultMessage: '关闭' }),
        });
      },
    });
    return () => setFeedback(null);
  }, [intl, message, modal]);

  return null;
}
