import { Tag } from 'antd';
import { useIntl, type MessageDescriptor } from 'react-intl';

/** A coloured label of a code the server sends (a status, a type, an action). */
export interface Label {
  label: MessageDescriptor;
  color: string;
}

/** A label as an antd tag in the current language. */
export function LabelTag({ label }: { label: Label }) {
  const intl = useIntl();
  return <Tag color={label.color}>{intl.formatMessage(label.label)}</Tag>;
}
