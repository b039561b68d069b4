import { useCallback } from 'react';
import { App } from 'antd';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import type { User } from '@aigw/contracts';
import { signedIn } from '../../app/session';
import { useAppDispatch } from '../../app/store';

/**
 * What every third-party login does with the user the server answers (the login answer may
 * carry `default_password` and `require_password_change`, which are not part of the stored
 * record): store it as LoginPage does, say so, and go to /token, or to the login page's forced
 * password change when the server refuses everything else until then (rule R8).
 */
export function useSignIn(): (user: (User & { default_password?: boolean; require_password_change?: boolean }) | { require_2fa: true }) => void {
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const intl = useIntl();
  const { message } = App.useApp();
  return useCallback(
    (user) => {
      // A third-party login of an account with 2FA: the code is asked on the login page.
      if ('require_2fa' in user) {
        void navigate('/login', { replace: true, state: { twoFactor: true } });
        return;
      }
      const { default_password: _defaultPassword, require_password_change: passwordChangeRequired, ...record } = user;
      dispatch(signedIn(record));
      void message.success(intl.formatMessage({ id: 'pages.login.success', defaultMessage: '登录成功！' }));
      if (passwordChangeRequired) {
        void navigate('/login', { replace: true, state: { passwordChange: true } });
        return;
      }
      // Replace: going back must not return to a spent callback or the sign-in form.
      void navigate('/token', { replace: true });
    },
    [dispatch, intl, message, navigate],
  );
}
