import { useState } from 'react';
import { App, Button, Divider, Form, Input, InputNumber, Select, Space } from 'antd';
import { useIntl } from 'react-intl';
import { PASSWORD_MIN, type RateLimits, type UpdateUserBody, type UserRow } from '@aigw/contracts';
import { useFormatQuota } from '../../app/hooks';
import { RateLimitFields, rateLimitsFromForm, sameRateLimits, type RateLimitValues } from '../../components/RateLimitFields';
import { useGroupNamesQuery } from '../groups/api';
import { useLimitUse } from '../limits/api';
import { useUpdateSelfMutation } from '../self/api';
import { useUpdateUserMutation } from './api';
import { AddQuotaModal } from './AddQuotaModal';
import { usePasswordRules, useUserFieldRules } from './rules';

interface EditUserValues {
  username: string;
  display_name: string;
  password: string;
  group: string;
  quota: number | string | null;
  /** The user's own limits (blank = unlimited here; the group's and the default still apply). */
  rate_limits: RateLimitValues;
}

/** The established product's parseInt: a quota typed or pasted as text becomes a whole number. */
export function toQuota(value: number | string | null | undefined): number {
  const quota = Math.trunc(Number(value));
  return Number.isFinite(quota) ? quota : 0;
}

/**
 * What a save sends for the quota: nothing when the admin did not change it (or it is unknown);
 * only the add-quota dialog's amounts as a delta on whatever the balance is then; a typed
 * balance with the one it replaces, which the server refuses if the balance moved meanwhile.
 */
export function quotaChange(loaded: number | null, shown: number, added: number): Pick<UpdateUserBody, 'quota' | 'expected_quota' | 'quota_delta'> {
  if (loaded === null || shown === loaded) return {};
  if (shown === loaded + added) return { quota_delta: added };
  return { quota: shown, expected_quota: loaded };
}

/**
 * What a save sends for the user's own limits: nothing when they are as loaded, so a save that
 * did not touch them never overwrites a change another admin made meanwhile; else the whole set
 * (an empty one removes them).
 */
export function rateLimitsChange(loaded: RateLimits, values: RateLimitValues | undefined): Pick<UpdateUserBody, 'rate_limits'> {
  const edited = rateLimitsFromForm(values);
  return sameRateLimits(edited, loaded) ? {} : { rate_limits: edited };
}

interface Props {
  /** An admin row (its balance null when billing did not answer), or the user's own record. */
  user: UserRow;
  onDone: () => void;
  /**
   * `admin` (default): PUT /api/user/ with the id, also the password, group and a quota change.
   * `self`: the user's own profile, PUT /api/user/self with username and display name (the
   * own password changes in the personal tab's dialog, which asks for the current one).
   */
  scope?: 'admin' | 'self';
}

/**
 * The edit-user form (docs/product.md section 3): username, password (empty keeps it), display
 * name, and for an admin also group, quota with the add-quota dialog and the user's own usage
 * limits with what they count now (docs/architecture.md section 5.9); the bindings are read-only.
 */
export function EditUserForm({ user, onDone, scope = 'admin' }: Props) {
  const isAdmin = scope === 'admin';
  const intl = useIntl();
  const { message } = App.useApp();
  const formatQuota = useFormatQuota();
  const [form] = Form.useForm<EditUserValues>();
  const [addingQuota, setAddingQuota] = useState(false);
  // The add-quota dialog's amounts since the form was loaded.
  const [added, setAdded] = useState(0);
  const quotaUnknown = user.quota === null;
  const { data: groups = [] } = useGroupNamesQuery(undefined, { skip: !isAdmin });
  const use = useLimitUse(isAdmin ? { scope: 'user', id: user.id } : null);
  const [updateUser, { isLoading: savingUser }] = useUpdateUserMutation();
  const [updateSelf, { isLoading: savingSelf }] = useUpdateSelfMutation();
  const isLoading = savingUser || savingSelf;
  const rules = useUserFieldRules();
  const passwordRules = usePasswordRules();
  const watchedQuota = Form.useWatch('quota', form);
  // useWatch answers undefined until the form has mounted.
  const quota = toQuota(watchedQuota === undefined ? user.quota : watchedQuota);

  // The user's own group stays choosable even when it is no longer a configured group.
  const groupOptions = [...new Set([...groups, user.group].filter(Boolean))].map((group) => ({ value: group, label: group }));

  const onFinish = async (values: EditUserValues) => {
    const profile = { username: values.username.trim(), display_name: (values.display_name ?? '').trim() };
    const body: UpdateUserBody = {
      id: user.id,
      ...profile,
      group: values.group,
      ...quotaChange(user.quota, toQuota(values.quota), added),
      ...rateLimitsChange(user.rate_limits, values.rate_limits),
      // Empty keeps the current password.
      ...(values.password ? { password: values.password } : {}),
    };
    const saved = await (isAdmin ? updateUser(body) : updateSelf(profile)).unwrap().then(
      () => true,
      () => false,
    );
    if (!saved) return;
    void message.success(intl.formatMessage({ id: 'pages.users.edit.success', defaultMessage: '用户信息更新成功！' }));
    onDone();
  };

  const readOnlyHint = intl.formatMessage({
    id: 'pages.users.field.readOnly',
    defaultMessage: '此项只读，需要用户通过个人设置页面的相关绑定按钮进行绑定，不可直接修改',
  });
  const readOnly = (field: string, label: string, value: string) => (
    <Form.Item label={label} htmlFor={`user-edit-${field}`}>
      <Input id={`user-edit-${field}`} readOnly value={value} placeholder={readOnlyHint} />
    </Form.Item>
  );

  return (
    <Form<EditUserValues>
      form={form}
      name="editUser"
      layout="vertical"
      initialValues={{
        username: user.username,
        display_name: user.display_name,
        password: '',
        group: user.group,
        quota: user.quota,
        rate_limits: { ...user.rate_limits },
      }}
      onFinish={(values) => void onFinish(values)}
    >
      <Form.Item
        name="username"
        label={intl.formatMessage({ id: 'pages.users.field.username', defaultMessage: '用户名' })}
        rules={[
          { required: true, whitespace: true, message: intl.formatMessage({ id: 'pages.users.rule.usernameRequired', defaultMessage: '用户名不能为空' }) },
          rules.usernameMax,
        ]}
      >
        <Input autoComplete="off" placeholder={intl.formatMessage({ id: 'pages.users.field.username.placeholder', defaultMessage: '请输入用户名' })} />
      </Form.Item>
      {isAdmin && (
        <Form.Item
          name="password"
          label={intl.formatMessage({ id: 'pages.users.field.password', defaultMessage: '密码' })}
          extra={intl.formatMessage({ id: 'pages.users.field.password.keep', defaultMessage: '留空则不修改密码' })}
          rules={passwordRules}
        >
          <Input.Password
            autoComplete="new-password"
            placeholder={intl.formatMessage({ id: 'pages.users.field.password.new', defaultMessage: '请输入新的密码，最短 {min} 位' }, { min: PASSWORD_MIN })}
          />
        </Form.Item>
      )}
      <Form.Item
        name="display_name"
        label={intl.formatMessage({ id: 'pages.users.field.displayName', defaultMessage: '显示名称' })}
        rules={[rules.displayNameMax]}
      >
        <Input autoComplete="off" placeholder={intl.formatMessage({ id: 'pages.users.field.displayName.placeholder', defaultMessage: '请输入显示名称' })} />
      </Form.Item>
      {isAdmin && (
        <>
          <Form.Item name="group" label={intl.formatMessage({ id: 'pages.users.field.group', defaultMessage: '分组' })}>
            <Select
              showSearch
              options={groupOptions}
              placeholder={intl.formatMessage({ id: 'pages.users.field.group.placeholder', defaultMessage: '请选择分组' })}
            />
          </Form.Item>
          <Form.Item
            label={intl.formatMessage({ id: 'pages.users.field.quota', defaultMessage: '剩余额度' })}
            extra={
              quotaUnknown
                ? intl.formatMessage({ id: 'pages.users.field.quota.unknown', defaultMessage: '暂时无法读取余额，不能修改额度，请稍后重新打开' })
                : intl.formatMessage({ id: 'pages.users.field.quota.display', defaultMessage: '折合：{value}' }, { value: formatQuota(quota) })
            }
          >
            <Space.Compact block>
              <Form.Item name="quota" noStyle>
                <InputNumber<number | string>
                  style={{ width: '100%' }}
                  precision={0}
                  disabled={quotaUnknown}
                  aria-label={intl.formatMessage({ id: 'pages.users.field.quota', defaultMessage: '剩余额度' })}
                  placeholder={
                    quotaUnknown
                      ? intl.formatMessage({ id: 'pages.users.balance.unknown', defaultMessage: '暂不可用' })
                      : intl.formatMessage({ id: 'pages.users.field.quota.placeholder', defaultMessage: '请输入新的剩余额度' })
                  }
                />
              </Form.Item>
              <Button disabled={quotaUnknown} onClick={() => setAddingQuota(true)}>
                {intl.formatMessage({ id: 'pages.users.addQuota.open', defaultMessage: '添加额度' })}
              </Button>
            </Space.Compact>
          </Form.Item>
          <Divider titlePlacement="start" plain>
            {intl.formatMessage({ id: 'pages.users.field.rateLimits', defaultMessage: '速率限制' })}
          </Divider>
          <RateLimitFields name="rate_limits" use={use} />
        </>
      )}
      {readOnly('github', intl.formatMessage({ id: 'pages.users.field.github', defaultMessage: '已绑定的 GitHub 账户' }), user.github_id)}
      {readOnly('wechat', intl.formatMessage({ id: 'pages.users.field.wechat', defaultMessage: '已绑定的微信账户' }), user.wechat_id)}
      {readOnly('email', intl.formatMessage({ id: 'pages.users.field.email', defaultMessage: '已绑定的邮箱账户' }), user.email)}
      {readOnly('telegram', intl.formatMessage({ id: 'pages.users.field.telegram', defaultMessage: '已绑定的 Telegram 账户' }), user.telegram_id)}
      <Space>
        <Button type="primary" htmlType="submit" loading={isLoading}>
          {intl.formatMessage({ id: 'common.submit', defaultMessage: '提交' })}
        </Button>
        <Button onClick={onDone}>{intl.formatMessage({ id: 'common.cancel', defaultMessage: '取消' })}</Button>
      </Space>
      {isAdmin && (
        <AddQuotaModal
          open={addingQuota}
          current={quota}
          onAdd={(amount) => {
            form.setFieldValue('quota', quota + amount);
            setAdded((total) => total + amount);
          }}
          onClose={() => setAddingQuota(false)}
        />
      )}
    </Form>
  );
}
