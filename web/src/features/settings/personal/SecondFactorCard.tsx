import { useState } from 'react';
import { App, Button, Card, Divider, Flex, Input, Modal, Popconfirm, QRCode, Tag, Typography } from 'antd';
import { DeleteOutlined, KeyOutlined, SafetyOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import type { TwoFactorSetup } from '@aigw/contracts';
import { useStatus } from '../../../app/hooks';
import { createPasskey, passkeysSupported } from '../../security/passkey-browser';
import { StepUpDialog } from '../../security/StepUpDialog';
import {
  useDeletePasskeyMutation,
  useDisableTwoFactorMutation,
  useEnableTwoFactorMutation,
  usePasskeyRegisterBeginMutation,
  usePasskeyRegisterFinishMutation,
  usePasskeysQuery,
  useRegenerateBackupCodesMutation,
  useSetupTwoFactorMutation,
  useTwoFactorStatusQuery,
} from '../../security/api';

const formatTime = (seconds: number | null) => (seconds === null ? '-' : new Date(seconds * 1000).toLocaleString());

/** The backup codes, shown once: a list to copy or write down. */
function BackupCodes({ codes }: { codes: string[] }) {
  const intl = useIntl();
  return (
    <>
      <Typography.Text type="secondary">
        {intl.formatMessage({ id: 'pages.security.backupCodes.hint', defaultMessage: '请妥善保存以下备用码。每个备用码只能使用一次，且只显示这一次。' })}
      </Typography.Text>
      <Typography.Paragraph copyable={{ text: codes.join('\n') }} style={{ marginTop: 8 }}>
        <code data-testid="backup-codes" style={{ display: 'block', whiteSpace: 'pre-wrap' }}>
          {codes.join('\n')}
        </code>
      </Typography.Paragraph>
    </>
  );
}

/** Asks for an authenticator code (or a backup code) and hands it over. */
function CodeDialog({
  open,
  title,
  onSubmit,
  onClose,
  loading,
}: {
  open: boolean;
  title: string;
  loading: boolean;
  onSubmit(code: string): void;
  onClose(): void;
}) {
  const intl = useIntl();
  const [code, setCode] = useState('');
  const label = intl.formatMessage({ id: 'pages.security.code', defaultMessage: '验证码' });
  return (
    <Modal
      open={open}
      title={title}
      okButtonProps={{ loading, disabled: !code.trim() }}
      onOk={() => onSubmit(code.trim())}
      onCancel={onClose}
      destroyOnHidden
      afterClose={() => setCode('')}
    >
      <Input
        autoFocus
        value={code}
        onChange={(event) => setCode(event.target.value)}
        onPressEnter={() => code.trim() && onSubmit(code.trim())}
        aria-label={label}
        placeholder={label}
        autoComplete="one-time-code"
      />
    </Modal>
  );
}

/**
 * Personal settings, security: two-factor sign-in (authenticator app with a QR code and backup
 * codes) and passkeys (a list, add, remove). Adding a passkey to a protected account asks for a
 * step-up first, as the server does.
 */
export function SecondFactorCard() {
  const intl = useIntl();
  const t = intl.formatMessage;
  const { message } = App.useApp();
  const status = useStatus();
  const { data: twoFactor } = useTwoFactorStatusQuery();
  const passkeysOn = Boolean(status?.passkey_login);
  const { data: passkeys } = usePasskeysQuery(undefined, { skip: !passkeysOn });
  const [setupTwoFactor, { isLoading: settingUp }] = useSetupTwoFactorMutation();
  const [enableTwoFactor, { isLoading: enabling }] = useEnableTwoFactorMutation();
  const [disableTwoFactor, { isLoading: disabling }] = useDisableTwoFactorMutation();
  const [regenerate, { isLoading: regenerating }] = useRegenerateBackupCodesMutation();
  const [registerBegin, { isLoading: beginning }] = usePasskeyRegisterBeginMutation();
  const [registerFinish] = usePasskeyRegisterFinishMutation();
  const [deletePasskey] = useDeletePasskeyMutation();

  const [setup, setSetup] = useState<TwoFactorSetup | null>(null);
  const [setupCode, setSetupCode] = useState('');
  const [dialog, setDialog] = useState<'disable' | 'regenerate' | null>(null);
  const [newCodes, setNewCodes] = useState<string[] | null>(null);
  const [stepUp, setStepUp] = useState(false);
  const [passkeyName, setPasskeyName] = useState('');

  const startSetup = async () => {
    const started = await setupTwoFactor()
      .unwrap()
      .catch(() => null);
    if (started) setSetup(started);
  };

  const confirmSetup = async () => {
    if (
      !(await enableTwoFactor({ code: setupCode.trim() })
        .unwrap()
        .then(
          () => true,
          () => false,
        ))
    )
      return;
    void message.success(t({ id: 'pages.security.twoFactor.enabled', defaultMessage: '两步验证已启用' }));
    setSetup(null);
    setSetupCode('');
  };

  const submitCode = async (code: string) => {
    if (dialog === 'disable') {
      if (
        !(await disableTwoFactor({ code })
          .unwrap()
          .then(
            () => true,
            () => false,
          ))
      )
        return;
      void message.success(t({ id: 'pages.security.twoFactor.disabled', defaultMessage: '两步验证已停用' }));
    } else {
      const renewed = await regenerate({ code })
        .unwrap()
        .catch(() => null);
      if (!renewed) return;
      setNewCodes(renewed.backup_codes);
    }
    setDialog(null);
  };

  const addPasskey = async () => {
    const begun = await registerBegin();
    if ('error' in begun) {
      const failure = begun.error as { status?: unknown; message?: string };
      // The account already has a second factor: verify first, then try again.
      if (failure.status === 403) setStepUp(true);
      else void message.error(failure.message ?? 'error');
      return;
    }
    const credential = await createPasskey(begun.data.options);
    if (!credential) return;
    const added = await registerFinish({ ...credential, ...(passkeyName.trim() ? { name: passkeyName.trim() } : {}) })
      .unwrap()
      .then(
        () => true,
        () => false,
      );
    if (!added) return;
    setPasskeyName('');
    void message.success(t({ id: 'pages.security.passkeys.added', defaultMessage: '通行密钥已添加' }));
  };

  const enabled = twoFactor?.enabled === true;

  return (
    <Card
      title={
        <>
          <SafetyOutlined /> {t({ id: 'pages.security.card.title', defaultMessage: '两步验证与通行密钥' })}
        </>
      }
    >
      <Flex vertical gap={8}>
        <Flex align="center" gap={8}>
          <Typography.Text strong>{t({ id: 'pages.security.twoFactor.title', defaultMessage: '两步验证（身份验证器应用）' })}</Typography.Text>
          <Tag color={enabled ? 'green' : 'default'}>
            {enabled ? t({ id: 'pages.security.twoFactor.on', defaultMessage: '已启用' }) : t({ id: 'pages.security.twoFactor.off', defaultMessage: '未启用' })}
          </Tag>
        </Flex>
        {enabled ? (
          <>
            <Typography.Text type="secondary">
              {t({ id: 'pages.security.backupCodes.remaining', defaultMessage: '剩余备用码：{count} 个' }, { count: twoFactor?.backup_codes_remaining ?? 0 })}
            </Typography.Text>
            <Flex gap={8} wrap>
              <Button onClick={() => setDialog('regenerate')}>{t({ id: 'pages.security.backupCodes.regenerate', defaultMessage: '重新生成备用码' })}</Button>
              <Button danger onClick={() => setDialog('disable')}>
                {t({ id: 'pages.security.twoFactor.disable', defaultMessage: '停用两步验证' })}
              </Button>
            </Flex>
          </>
        ) : (
          <Flex>
            <Button type="primary" loading={settingUp} onClick={() => void startSetup()}>
              {t({ id: 'pages.security.twoFactor.setup', defaultMessage: '启用两步验证' })}
            </Button>
          </Flex>
        )}

        {passkeysOn && (
          <>
            <Divider style={{ margin: '12px 0' }} />
            <Typography.Text strong>{t({ id: 'pages.security.passkeys.title', defaultMessage: '通行密钥' })}</Typography.Text>
            {(passkeys?.passkeys ?? []).length === 0 && (
              <Typography.Text type="secondary">{t({ id: 'pages.security.passkeys.empty', defaultMessage: '尚未添加通行密钥' })}</Typography.Text>
            )}
            {(passkeys?.passkeys ?? []).map((passkey) => (
              <Flex key={passkey.id} align="center" gap={8} justify="space-between">
                <Flex vertical>
                  <Typography.Text>
                    <KeyOutlined /> {passkey.name}
                  </Typography.Text>
                  <Typography.Text type="secondary">
                    {t(
                      { id: 'pages.security.passkeys.dates', defaultMessage: '添加于 {created}，上次使用 {used}' },
                      { created: formatTime(passkey.created_at), used: formatTime(passkey.last_used_at) },
                    )}
                  </Typography.Text>
                </Flex>
                <Popconfirm
                  title={t({ id: 'pages.security.passkeys.deleteConfirm', defaultMessage: '确定删除此通行密钥吗？' })}
                  onConfirm={() => void deletePasskey(passkey.id)}
                >
                  <Button size="small" danger icon={<DeleteOutlined />} aria-label={t({ id: 'pages.security.passkeys.delete', defaultMessage: '删除' })} />
                </Popconfirm>
              </Flex>
            ))}
            {passkeysSupported() ? (
              <Flex gap={8}>
                <Input
                  value={passkeyName}
                  maxLength={32}
                  onChange={(event) => setPasskeyName(event.target.value)}
                  placeholder={t({ id: 'pages.security.passkeys.name', defaultMessage: '名称（可选），例如：我的笔记本' })}
                  aria-label={t({ id: 'pages.security.passkeys.name', defaultMessage: '名称（可选），例如：我的笔记本' })}
                />
                <Button icon={<KeyOutlined />} loading={beginning} onClick={() => void addPasskey()}>
                  {t({ id: 'pages.security.passkeys.add', defaultMessage: '添加通行密钥' })}
                </Button>
              </Flex>
            ) : (
              <Typography.Text type="secondary">{t({ id: 'pages.security.passkeys.unsupported', defaultMessage: '此浏览器不支持通行密钥' })}</Typography.Text>
            )}
          </>
        )}
      </Flex>

      <Modal
        open={setup !== null}
        title={t({ id: 'pages.security.setup.title', defaultMessage: '设置两步验证' })}
        okText={t({ id: 'pages.security.setup.confirm', defaultMessage: '验证并启用' })}
        okButtonProps={{ loading: enabling, disabled: !setupCode.trim() }}
        onOk={() => void confirmSetup()}
        onCancel={() => setSetup(null)}
        destroyOnHidden
      >
        {setup && (
          <Flex vertical gap={8}>
            <Typography.Text>
              {t({ id: 'pages.security.setup.scan', defaultMessage: '1. 使用身份验证器应用（如 Google Authenticator、Microsoft Authenticator）扫描二维码：' })}
            </Typography.Text>
            <QRCode type="svg" value={setup.qr_code_data} size={180} />
            <Typography.Text type="secondary">
              {t({ id: 'pages.security.setup.secret', defaultMessage: '无法扫描时，手动输入密钥：{secret}' }, { secret: setup.secret })}
            </Typography.Text>
            <Typography.Text>{t({ id: 'pages.security.setup.save', defaultMessage: '2. 保存备用码：' })}</Typography.Text>
            <BackupCodes codes={setup.backup_codes} />
            <Typography.Text>{t({ id: 'pages.security.setup.enter', defaultMessage: '3. 输入应用显示的 6 位验证码：' })}</Typography.Text>
            <Input
              value={setupCode}
              onChange={(event) => setSetupCode(event.target.value)}
              onPressEnter={() => setupCode.trim() && void confirmSetup()}
              autoComplete="one-time-code"
              aria-label={t({ id: 'pages.security.code', defaultMessage: '验证码' })}
              placeholder={t({ id: 'pages.security.code', defaultMessage: '验证码' })}
            />
          </Flex>
        )}
      </Modal>
      <CodeDialog
        open={dialog !== null}
        loading={disabling || regenerating}
        title={
          dialog === 'disable'
            ? t({ id: 'pages.security.twoFactor.disable.title', defaultMessage: '输入验证码或备用码以停用两步验证' })
            : t({ id: 'pages.security.backupCodes.regenerate.title', defaultMessage: '输入身份验证器应用的验证码以生成新的备用码' })
        }
        onSubmit={(code) => void submitCode(code)}
        onClose={() => setDialog(null)}
      />
      <Modal
        open={newCodes !== null}
        title={t({ id: 'pages.security.backupCodes.new', defaultMessage: '新的备用码' })}
        footer={null}
        onCancel={() => setNewCodes(null)}
      >
        {newCodes && <BackupCodes codes={newCodes} />}
      </Modal>
      <StepUpDialog
        open={stepUp}
        onClose={() => setStepUp(false)}
        onVerified={() => {
          setStepUp(false);
          void addPasskey();
        }}
      />
    </Card>
  );
}
