import { useEffect } from 'react';
import { App } from 'antd';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';

/** A screen that needs an enabled token sends the user to /token after 1.5 s (docs/product.md section 7). */
export const NO_TOKEN_REDIRECT_MS = 1500;

/** When `noToken` turns true: the product's message, then /token after 1.5 s. */
export function useNoTokenRedirect(noToken: boolean): void {
  const intl = useIntl();
  const navigate = useNavigate();
  const { message } = App.useApp();
  useEffect(() => {
    if (!noToken) return;
    void message.error(intl.formatMessage({ id: 'pages.playground.noToken', defaultMessage: '当前没有可用的启用令牌，请确认是否有令牌处于启用状态！' }));
    const timer = setTimeout(() => void navigate('/token'), NO_TOKEN_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [intl, message, navigate, noToken]);
}
