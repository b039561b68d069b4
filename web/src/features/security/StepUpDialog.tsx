import { useState } from 'react';
import { Alert, Button, Divider, Flex, Input, Modal, Typography } from 'antd';
import { KeyOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { Link } from 'react-router';
import { useStatus } from '../../app/hooks';
import { assertPasskey, passkeysSupported } from './passkey-browser';
import { usePasskeysQuery, usePasskeyVerifyBeginMutation, useTwoFactorStatusQuery, useVerifyMutation } from './api';

interface StepUpDialogProps {
  open: boolean;
  onClose(): void;
  /** The session may now do sensitive things for a few minutes. */
  onVerified(): void;
}

/**
 * The step-up before a sensitive action (`POST /api/verify`): a code of the authenticator app
 * (or a backup code), or the user's passkey. A user with neither is sent to set one up.
 */
export function StepUpDialog({ open, onClose, onVerified }: StepUpDialogProps) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const status = useStatus();
  const { data: twoFactor, isLoading: loadingTwoFactor } = useTwoFactorStatusQuery(undefined, { skip: !open });
  const { data: passkeys, isLoading: loadingPasskeys } = usePasskeysQuery(undefined, { skip: !open });
  const [verify, { isLoading: verifying }] = useVerifyMutation();
  const [verifyBegin, { isLoading: beginning }] = usePasskeyVerifyBeginMutation();
  const [code, setCode] = useState('');

  const hasTotp = twoFactor?.enabled === true;
  const hasPasskey = Boolean(status?.passkey_login && passkeys?.enabled && passkeysSupported());
  const loading = loadingTwoFactor || loadingPasskeys;

  const done = () => {
    setCode('');
    onVerified();
  };

  const verifyCode = async () => {
    if (!code.trim()) return;
    if (
      await verify({ method: '2fa', code: code.trim() })
        .unwrap()
        .then(
          () => true,
          () => false,
        )
    )
      done();
  };

  const verifyPasskey = async () => {
    const begun = await verifyBegin()
      .unwrap()
      .catch(() => null);
    if (!begun) return;
    const credential = await assertPasskey(begun.options);
    if (!credential) return;
    if (
      await verify({ method: 'passkey', credential })
        .unwrap()
        .then(
          () => true,
          () => false,
        )
    )
      done();
  };

  return (
    <Modal open={open} title={t({ id: 'pages.security.stepUp.title', defaultMessage: '安全验证' })} footer={null} onCancel={onClose} destroyOnHidden>
      <Typography.Paragraph type="secondary">
        {t({ id: 'pages.security.stepUp.intro', defaultMessage: '此操作涉及敏感信息，请先验证身份。验证后几分钟内无需再次验证。' })}
      </Typography.Paragraph>
      {!loading && !hasTotp && !hasPasskey && (
        <Alert
          type="warning"
          showIcon
          title={t({ id: 'pages.security.stepUp.none', defaultMessage: '您还没有设置两步验证或通行密钥，请先在个人设置中设置其中一种。' })}
          action={
            <Link to="/setting" onClick={onClose}>
              {t({ id: 'pages.security.stepUp.setup', defaultMessage: '去设置' })}
            </Link>
          }
        />
      )}
      {hasTotp && (
        <Flex gap={8}>
          <Input
            autoFocus
            value={code}
            onChange={(event) => setCode(event.target.value)}
            onPressEnter={() => void verifyCode()}
            autoComplete="one-time-code"
            aria-label={t({ id: 'pages.security.stepUp.code', defaultMessage: '验证码或备用码' })}
            placeholder={t({ id: 'pages.security.stepUp.code', defaultMessage: '验证码或备用码' })}
          />
          <Button type="primary" loading={verifying} onClick={() => void verifyCode()}>
            {t({ id: 'pages.security.stepUp.verify', defaultMessage: '验证' })}
          </Button>
        </Flex>
      )}
      {hasTotp && hasPasskey && <Divider plain>{t({ id: 'pages.security.or', defaultMessage: '或' })}</Divider>}
      {hasPasskey && (
        <Button block icon={<KeyOutlined />} loading={beginning} onClick={() => void verifyPasskey()}>
          {t({ id: 'pages.security.stepUp.passkey', defaultMessage: '使用通行密钥验证' })}
        </Button>
      )}
    </Modal>
  );
}
