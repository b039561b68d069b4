import { useEffect, useRef, useState } from 'react';
import { App, Flex, Spin, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { useOauthCallbackMutation } from './api';
import { useSignIn } from './useSignIn';

/** How long the failure message stays before the redirect, so it can be read. */
export const FAILURE_REDIRECT_MS = 1500;

/**
 * /oauth/:provider?code=&state=: the provider's redirect after authorization. The server logs
 * the user in, or binds the account when a session exists (answer message 'bind').
 */
export function OAuthCallbackPage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const { provider = '' } = useParams();
  const [searchParams] = useSearchParams();
  const signIn = useSignIn();
  const [oauthCallback] = useOauthCallbackMutation();
  const [failed, setFailed] = useState(false);
  // The code is single-use: StrictMode's second effect run must not send it again.
  const sent = useRef(false);

  // The established product goes to /setting (a failed bind starts there); a visitor who is not
  // signed in lands on the login page through the route guard.
  useEffect(() => {
    if (!failed) return;
    const timer = setTimeout(() => void navigate('/setting', { replace: true }), FAILURE_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [failed, navigate]);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    const code = searchParams.get('code');
    const state = searchParams.get('state') ?? '';

    const fail = () => setFailed(true);

    if (!code) {
      // The provider came back without a code (the user declined): say why when it tells.
      const reason = searchParams.get('error_description') || searchParams.get('error');
      if (reason) void message.error(reason);
      fail();
      return;
    }
    void oauthCallback({ provider, code, state })
      .unwrap()
      .then(({ user, bound }) => {
        if (bound) {
          void message.success(intl.formatMessage({ id: 'pages.oauth.bound', defaultMessage: '绑定成功！' }));
          void navigate('/setting', { replace: true });
        } else if (user) {
          signIn(user);
        } else {
          fail();
        }
      })
      // The base query has shown the server's message.
      .catch(fail);
  }, [intl, message, navigate, oauthCallback, provider, searchParams, signIn]);

  return (
    <Flex vertical align="center" justify="center" gap={16} style={{ minHeight: 240 }}>
      {!failed && <Spin size="large" />}
      <Typography.Text type={failed ? 'danger' : undefined}>
        {failed
          ? intl.formatMessage({ id: 'pages.oauth.failed', defaultMessage: '操作失败，重定向至登录界面中...' })
          : intl.formatMessage({ id: 'pages.oauth.processing', defaultMessage: '处理中...' })}
      </Typography.Text>
    </Flex>
  );
}

export default OAuthCallbackPage;
