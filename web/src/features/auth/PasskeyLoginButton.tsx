import { Button } from 'antd';
import { KeyOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import type { LoginResult } from '@aigw/contracts';
import { useStatus } from '../../app/hooks';
import { assertPasskey, passkeysSupported } from '../security/passkey-browser';
import { usePasskeyLoginBeginMutation, usePasskeyLoginFinishMutation } from './second-factor-api';

/** Sign-in with a passkey, no username or password: shown when the administrator enabled passkeys. */
export function PasskeyLoginButton({ onSignedIn }: { onSignedIn(user: LoginResult): void }) {
  const intl = useIntl();
  const status = useStatus();
  const [begin, { isLoading: beginning }] = usePasskeyLoginBeginMutation();
  const [finish, { isLoading: finishing }] = usePasskeyLoginFinishMutation();
  if (!status?.passkey_login || !passkeysSupported()) return null;

  const signIn = async () => {
    const begun = await begin()
      .unwrap()
      .catch(() => null);
    if (!begun) return;
    const credential = await assertPasskey(begun.options);
    if (!credential) return;
    const user = await finish(credential)
      .unwrap()
      .catch(() => null);
    if (user) onSignedIn(user);
  };

  return (
    <Button size="large" block icon={<KeyOutlined />} loading={beginning || finishing} onClick={() => void signIn()} style={{ marginTop: 12 }}>
      {intl.formatMessage({ id: 'pages.login.passkey', defaultMessage: '使用通行密钥登录' })}
    </Button>
  );
}
