import { Alert, Card } from 'antd';
import { useIntl } from 'react-intl';
import { useNavigate, useParams } from 'react-router';
import { ChannelForm } from './ChannelForm';
import { notFoundMessage } from './use-failure';

/** /channel/add (create) and /channel/edit/:id (update): the channel editor as a page. */
export function ChannelEditPage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const { id } = useParams();
  const channelId = id === undefined ? undefined : Number(id);
  const valid = channelId === undefined || (Number.isInteger(channelId) && channelId > 0);
  const back = () => void navigate('/channel');

  return (
    <Card
      title={
        channelId === undefined
          ? intl.formatMessage({ id: 'pages.channels.add', defaultMessage: '添加渠道' })
          : intl.formatMessage({ id: 'pages.channels.edit.title', defaultMessage: '更新渠道信息' })
      }
    >
      {valid ? (
        <ChannelForm channelId={channelId} onDone={back} onCancel={back} />
      ) : (
        <Alert type="error" showIcon title={intl.formatMessage(notFoundMessage)} />
      )}
    </Card>
  );
}

export default ChannelEditPage;
