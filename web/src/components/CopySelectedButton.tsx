import { useState } from 'react';
import { App, Button } from 'antd';
import { CopyOutlined } from '@ant-design/icons';
import { useIntl, type MessageDescriptor } from 'react-intl';
import { copyText } from '../lib/clipboard';

interface CopySelectedButtonProps {
  /** How many rows are selected. */
  count: number;
  /** The selected rows' keys in order; null when one could not be had (its message is already shown). */
  keys(): Promise<string[] | null>;
  /** Between the keys: a line break (tokens, codes), a comma (model names). */
  separator?: string;
  messages: {
    label: MessageDescriptor;
    /** Nothing is selected. */
    none: MessageDescriptor;
    /** Copied; `{count}` is the number of keys. */
    done: MessageDescriptor;
  };
}

/** Copies the keys of the selected rows (tokens, redemption codes, model names). */
export function CopySelectedButton({ count, keys, separator = '\n', messages }: CopySelectedButtonProps) {
  const intl = useIntl();
  const { message } = App.useApp();
  const [copying, setCopying] = useState(false);

  const copy = async () => {
    if (count === 0) {
      void message.warning(intl.formatMessage(messages.none));
      return;
    }
    setCopying(true);
    const lines = await keys();
    setCopying(false);
    if (lines && (await copyText(lines.join(separator)))) {
      void message.success(intl.formatMessage(messages.done, { count: lines.length }));
    }
  };

  return (
    <Button icon={<CopyOutlined />} loading={copying} onClick={() => void copy()}>
      {intl.formatMessage(messages.label)}
    </Button>
  );
}
