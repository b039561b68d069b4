import { useState } from 'react';
import { App, Card, Col, Flex, Row, Skeleton, Switch } from 'antd';
import type { OptionKey } from '@aigw/contracts';
import { useAppDispatch } from '../../../app/store';
import { useSaveOptions } from '../OptionSection';
import { toFormValue } from '../option-values';
import { optionsApi, useGetOptionsQuery } from '../options-api';
import { hasRequiredSettings, loginSwitches, type LoginSwitch } from './login-switches';
import { useText } from '../../../app/use-text';

/**
 * Login and registration switches. Each saves as soon as it is toggled; turning a login method
 * on needs its configuration stored first, and turning password login off asks first, since
 * without another login method nobody could sign in any more.
 */
export function LoginSwitchesCard() {
  const t = useText();
  const { modal, message } = App.useApp();
  const { data: stored, isLoading } = useGetOptionsQuery();
  const dispatch = useAppDispatch();
  const saveOptions = useSaveOptions();
  const [saving, setSaving] = useState<OptionKey | null>(null);

  const isOn = (key: OptionKey) => toFormValue(key, stored?.[key]) === true;

  // Optimistic: the switch moves at once and moves back if the server refuses.
  const save = async (key: OptionKey, value: boolean) => {
    setSaving(key);
    const patch = dispatch(
      optionsApi.util.updateQueryData('getOptions', undefined, (draft) => {
        draft[key] = String(value);
      }),
    );
    const ok = await saveOptions([{ key, value: String(value) }]);
    if (!ok) patch.undo();
    setSaving(null);
  };

  const toggle = (entry: LoginSwitch, value: boolean) => {
    if (value && entry.requires && !hasRequiredSettings(entry, stored)) {
      void message.error(entry.requires.message(t));
      return;
    }
    if (entry.key === 'PasswordLoginEnabled' && !value) {
      modal.confirm({
        title: t('pages.settings.system.login.passwordLogin.confirmTitle', '确定要取消密码登录吗？'),
        content: t('pages.settings.system.login.passwordLogin.confirmContent', '如果你没有设置第三方登录方式，你将无法登录！'),
        okText: t('pages.settings.system.login.passwordLogin.confirmOk', '确定'),
        okButtonProps: { danger: true },
        cancelText: t('pages.settings.system.login.passwordLogin.confirmCancel', '取消'),
        onOk: () => save(entry.key, false),
      });
      return;
    }
    void save(entry.key, value);
  };

  return (
    <Card title={t('pages.settings.system.login.title', '配置登录注册')} style={{ marginBottom: 16 }}>
      {isLoading ? (
        <Skeleton active />
      ) : (
        <Row gutter={[16, 12]}>
          {loginSwitches.map((entry) => {
            const id = `login-switch-${entry.key.replace(/\W/g, '-')}`;
            return (
              <Col key={entry.key} xs={24} md={12} xl={8}>
                <Flex align="center" gap={8}>
                  <Switch
                    id={id}
                    checked={isOn(entry.key)}
                    loading={saving === entry.key}
                    disabled={saving !== null && saving !== entry.key}
                    onChange={(value) => toggle(entry, value)}
                  />
                  <label htmlFor={id}>{entry.label(t)}</label>
                </Flex>
              </Col>
            );
          })}
        </Row>
      )}
    </Card>
  );
}
