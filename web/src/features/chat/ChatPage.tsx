import { Button, Result, Spin } from 'antd';
import { useIntl } from 'react-intl';
import { useParams } from 'react-router';
import { useStatus } from '../../app/hooks';
import { useNoTokenRedirect } from '../../components/no-token-redirect';
import { chatLinks, fillChatLink, isWebLink, serverAddress } from '../../lib/chat-links';
import { useEnabledTokenKey } from './use-enabled-token-key';

/** /chat/{id}: the id-th configured chat client in a frame, signed in with the user's token. */
export function ChatPage() {
  const intl = useIntl();
  const status = useStatus();
  const { id = '0' } = useParams();
  const links = chatLinks(status);
  const index = Number(id);
  const link = Number.isInteger(index) ? links[index] : undefined;
  const key = useEnabledTokenKey(!link);
  useNoTokenRedirect(key === null);

  if (links.length === 0) {
    return <Result status="warning" title={intl.formatMessage({ id: 'pages.chat.notConfigured', defaultMessage: '请联系管理员配置聊天链接' })} />;
  }
  if (!link || !link.url.includes('{key}')) {
    return <Result status="error" title={intl.formatMessage({ id: 'pages.chat.badConfig', defaultMessage: '聊天链接配置错误，请联系管理员' })} />;
  }
  if (!key) return <Spin style={{ display: 'block', marginTop: 64 }} />;

  const url = fillChatLink(link.url, key, serverAddress(status));
  if (!isWebLink(url)) {
    return (
      <Result
        status="info"
        title={link.name}
        subTitle={intl.formatMessage({ id: 'pages.chat.appLink', defaultMessage: '该聊天客户端是一个应用，点击下方按钮打开' })}
        extra={
          <Button type="primary" href={url}>
            {intl.formatMessage({ id: 'pages.chat.open', defaultMessage: '打开 {name}' }, { name: link.name })}
          </Button>
        }
      />
    );
  }
  return <iframe title={link.name} src={url} style={{ width: '100%', height: 'calc(100vh - 160px)', border: 'none' }} allow="clipboard-write" />;
}

export default ChatPage;
