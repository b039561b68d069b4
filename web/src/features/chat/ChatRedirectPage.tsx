import { useEffect } from 'react';
import { Result, Spin } from 'antd';
import { useIntl } from 'react-intl';
import { useStatus } from '../../app/hooks';
import { useNoTokenRedirect } from '../../components/no-token-redirect';
import { chatLinks, fillChatLink, serverAddress } from '../../lib/chat-links';
import { useEnabledTokenKey } from './use-enabled-token-key';

/**
 * /chat2link: sends the browser to the chat client, signed in with the user's token: the legacy
 * chat link when the admin set one (NextChat-style settings in its fragment), else the first
 * configured chat client.
 */
export function chatTarget(chatLink: string, links: Array<{ url: string }>): string | undefined {
  if (chatLink) return `${chatLink.replace(/\/+$/, '')}/#/?settings={"key":"{key}","url":"{address}"}`;
  return links[0]?.url;
}

export function ChatRedirectPage() {
  const intl = useIntl();
  const status = useStatus();
  const target = chatTarget(status?.chat_link ?? '', chatLinks(status));
  const key = useEnabledTokenKey(!target);
  useNoTokenRedirect(key === null);

  useEffect(() => {
    if (target && key) window.location.assign(fillChatLink(target, key, serverAddress(status)));
  }, [key, status, target]);

  if (!target) return <Result status="warning" title={intl.formatMessage({ id: 'pages.chat.notConfigured', defaultMessage: '请联系管理员配置聊天链接' })} />;
  return <Spin style={{ display: 'block', marginTop: 64 }} />;
}

export default ChatRedirectPage;
