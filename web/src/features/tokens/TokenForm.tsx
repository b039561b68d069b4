import { useMemo } from 'react';
import { Alert, App, AutoComplete, Button, Divider, Form, Input, Select, Space, Switch, Tag, Typography } from 'antd';
import { RateLimitFields, rateLimitsFromForm, sameRateLimits, type RateLimitValues } from '../../components/RateLimitFields';
import {
  DRAWING_MODES,
  MAX_QUOTA,
  RATE_LIMIT_MESSAGE_MAX,
  TOKEN_BATCH_MAX,
  TOKEN_NAME_MAX,
  type CreateTokenBody,
  type DrawingMode,
  type LimitUse,
  type TokenView,
  type UpdateTokenBody,
  type UsableGroups,
} from '@aigw/contracts';
import { useCurrentUser, useFormatQuota } from '../../app/hooks';
import { useText } from '../../app/use-text';
import { useCreateTokenMutation, useUpdateTokenMutation } from './api';
import { ExpiryInput } from './ExpiryInput';
import { COUNT_PRESETS, DEFAULT_TOKEN_QUOTA, expiryToText, parseExpiry, parseInteger, QUICK_QUOTA_DOLLARS, QUOTA_PER_DOLLAR } from './token-rules';

interface TokenFormValues {
  name: string;
  group?: string;
  /** yyyy-MM-dd HH:mm:ss or blank (never). */
  expiry: string;
  /** Text, so that a typed value can be refused with the product's message. */
  remain_quota: string;
  unlimited_quota: boolean;
  count: string;
  model_limits_enabled: boolean;
  model_limits: string[];
  allow_ips: string;
  deny_ips: string;
  /** Requests and tokens per minute and day, requests at once (blank = unlimited). */
  rate_limits: RateLimitValues;
  /** What a refusal by those limits says (blank = the default text). */
  rate_limit_message: string;
  /** The Midjourney modes the key may draw in (none = every mode). */
  drawing_modes: DrawingMode[];
}

interface TokenFormProps {
  /** The token to update; none to create one. */
  token?: TokenView;
  /** What the token's limits count now (GET /api/limits/use), when editing. */
  use?: LimitUse[];
  /** Groups the user may pick (GET /api/user/self/groups). */
  groups: UsableGroups;
  /** Models the user may call (GET /api/user/models), for the model limits. */
  models: string[];
  onDone: () => void;
}

/** The drawing modes' names. */
const drawingModeNames: Record<DrawingMode, { id: string; defaultMessage: string }> = {
  fast: { id: 'pages.tokens.form.drawingModes.fast', defaultMessage: '快速（fast）' },
  relax: { id: 'pages.tokens.form.drawingModes.relax', defaultMessage: '慢速（relax）' },
  turbo: { id: 'pages.tokens.form.drawingModes.turbo', defaultMessage: '极速（turbo）' },
};

/** The token form (docs/product.md section 7). */
export function TokenForm({ token, use, groups, models, onDone }: TokenFormProps) {
  const { message } = App.useApp();
  const user = useCurrentUser();
  const formatQuota = useFormatQuota();
  const [form] = Form.useForm<TokenFormValues>();
  const [createToken, { isLoading: creating }] = useCreateTokenMutation();
  const [updateToken, { isLoading: updating }] = useUpdateTokenMutation();
  const t = useText();
  const unlimited = Form.useWatch('unlimited_quota', form) ?? token?.unlimited_quota ?? false;
  const limitsEnabled = Form.useWatch('model_limits_enabled', form) ?? token?.model_limits_enabled ?? false;
  const quotaText = Form.useWatch('remain_quota', form);

  const userGroup = user?.group ?? '';
  // The user's own group is always offered; "allowed" means the admin opened any other.
  const noneAllowed = Object.keys(groups).every((group) => group === userGroup);
  const groupOptions = Object.entries(groups).map(([group, info]) => ({
    value: group,
    label: (
      <Space size={4}>
        <span>{group}</span>
        {info.desc && <Typography.Text type="secondary">{info.desc}</Typography.Text>}
        <Tag>x{info.ratio}</Tag>
      </Space>
    ),
  }));

  const initialValues = useMemo<TokenFormValues>(() => {
    const shownGroup = token?.group || userGroup;
    return {
      name: token?.name ?? '',
      group: !noneAllowed && shownGroup in groups ? shownGroup : undefined,
      expiry: token ? expiryToText(token.expired_time) : '',
      remain_quota: String(token?.remain_quota ?? DEFAULT_TOKEN_QUOTA),
      unlimited_quota: token?.unlimited_quota ?? false,
      count: '1',
      model_limits_enabled: token?.model_limits_enabled ?? false,
      model_limits: token?.model_limits ? token.model_limits.split(',').filter(Boolean) : [],
      allow_ips: token?.allow_ips ?? '',
      deny_ips: token?.deny_ips ?? '',
      rate_limits: { ...(token?.rate_limits ?? {}) },
      rate_limit_message: token?.rate_limit_message ?? '',
      drawing_modes: token?.drawing_modes ?? [],
    };
  }, [token, userGroup, noneAllowed, groups]);

  const quotaMessage = (value: string | undefined): string | null => {
    const quota = parseInteger(value);
    if (quota === null) return t('pages.tokens.form.quota.integer', '额度必须是整数');
    if (quota < 0) return t('pages.tokens.form.quota.negative', '额度不能为负数');
    if (quota > MAX_QUOTA) return t('pages.tokens.form.quota.tooLarge', '额度过大');
    return null;
  };
  const countMessage = (value: string | undefined): string | null => {
    const count = parseInteger(value);
    if (count === null || count < 1) return t('pages.tokens.form.count.positive', '新建数量必须是正整数');
    if (count > TOKEN_BATCH_MAX) return t('pages.tokens.form.count.max', '一次最多新建 {max} 个令牌', { max: TOKEN_BATCH_MAX });
    return null;
  };
  // Unlimited turns the quota and count inputs off, and with them their rules.
  const unlessUnlimited = (check: (value: string | undefined) => string | null) => ({
    validator: async (_: unknown, value: string | undefined) => {
      if (form.getFieldValue('unlimited_quota')) return;
      const problem = check(value);
      if (problem) throw new Error(problem);
    },
  });

  const onFinish = async (values: TokenFormValues) => {
    const expiredTime = parseExpiry(values.expiry)!;
    const quota = parseInteger(values.remain_quota);
    const fields = {
      name: values.name.trim(),
      remain_quota: quota !== null && quotaMessage(values.remain_quota) === null ? quota : 0,
      expired_time: expiredTime,
      unlimited_quota: values.unlimited_quota,
      model_limits_enabled: values.model_limits_enabled,
      model_limits: values.model_limits.join(','),
      allow_ips: values.allow_ips.trim(),
      deny_ips: values.deny_ips.trim(),
      rate_limit_message: values.rate_limit_message.trim(),
      drawing_modes: values.drawing_modes,
    };
    const rateLimits = rateLimitsFromForm(values.rate_limits);
    if (token) {
      const body: UpdateTokenBody = { id: token.id, ...fields };
      // Sent only when changed: a token on the user's group ('') keeps following it.
      if (values.group !== initialValues.group) body.group = values.group ?? '';
      if (!sameRateLimits(rateLimits, token.rate_limits)) body.rate_limits = rateLimits;
      const done = await updateToken(body)
        .unwrap()
        .then(
          () => true,
          () => false,
        );
      if (!done) return;
      void message.success(t('pages.tokens.form.updated', '令牌更新成功！'));
    } else {
      const count = countMessage(values.count) === null ? parseInteger(values.count)! : 1;
      // One request: the server creates the extras itself, named <name>-xxxxxx.
      const body: CreateTokenBody = { ...fields, rate_limits: rateLimits, group: values.group ?? '', count };
      const done = await createToken(body)
        .unwrap()
        .then(
          () => true,
          () => false,
        );
      if (!done) return;
      void message.success(t('pages.tokens.form.created', '令牌创建成功，请在列表页面点击复制获取令牌！'));
    }
    onDone();
  };

  const quota = parseInteger(quotaText);
  return (
    <Form<TokenFormValues> form={form} layout="vertical" initialValues={initialValues} onFinish={(values) => void onFinish(values)}>
      <Form.Item
        name="name"
        label={t('pages.tokens.form.name', '名称')}
        rules={[
          { required: true, whitespace: true, message: t('pages.tokens.form.name.required', '请输入名称') },
          { max: TOKEN_NAME_MAX, message: t('pages.tokens.form.name.max', '名称不能超过 {max} 个字符', { max: TOKEN_NAME_MAX }) },
        ]}
      >
        <Input placeholder={t('pages.tokens.form.name.placeholder', '请输入名称')} />
      </Form.Item>
      <Form.Item
        name="group"
        label={t('pages.tokens.form.group', '令牌分组')}
        extra={noneAllowed ? t('pages.tokens.form.group.none', '管理员未设置用户可选分组') : t('pages.tokens.form.group.hint', '默认为用户的分组')}
      >
        <Select
          disabled={noneAllowed}
          options={groupOptions}
          placeholder={noneAllowed ? t('pages.tokens.form.group.none', '管理员未设置用户可选分组') : t('pages.tokens.form.group.hint', '默认为用户的分组')}
        />
      </Form.Item>
      <Form.Item
        name="expiry"
        label={t('pages.tokens.form.expiry', '过期时间')}
        rules={[
          {
            validator: async (_, value: string | undefined) => {
              if (parseExpiry(value) === null) throw new Error(t('pages.tokens.form.expiry.invalid', '过期时间格式错误！'));
            },
          },
        ]}
      >
        <ExpiryInput />
      </Form.Item>
      <Alert
        type="info"
        showIcon
        style={{ marginBottom: 16 }}
        title={t('pages.tokens.form.quotaNote', '注意：令牌的额度仅用于限制令牌本身的最大使用量，实际使用仍受账户剩余额度限制。')}
      />
      <Form.Item
        name="remain_quota"
        label={t('pages.tokens.form.quota', '额度')}
        dependencies={['unlimited_quota']}
        rules={[unlessUnlimited(quotaMessage)]}
        extra={quota !== null && quota >= 0 ? t('pages.tokens.form.quota.equivalent', '等价金额：{amount}', { amount: formatQuota(quota) }) : undefined}
      >
        <AutoComplete
          disabled={unlimited}
          placeholder={t('pages.tokens.form.quota.placeholder', '请输入额度')}
          options={QUICK_QUOTA_DOLLARS.map((dollars) => ({
            value: String(dollars * QUOTA_PER_DOLLAR),
            label: t('pages.tokens.form.quota.option', '{dollars} 美元（{quota}）', { dollars, quota: dollars * QUOTA_PER_DOLLAR }),
          }))}
        />
      </Form.Item>
      {!token && (
        <Form.Item
          name="count"
          label={t('pages.tokens.form.count', '新建数量')}
          dependencies={['unlimited_quota']}
          rules={[unlessUnlimited(countMessage)]}
          extra={t('pages.tokens.form.count.hint', '多于一个时，其余令牌命名为 名称-随机 6 位字母数字')}
        >
          <AutoComplete
            disabled={unlimited}
            placeholder={t('pages.tokens.form.count.placeholder', '请输入新建数量')}
            options={COUNT_PRESETS.map((count) => ({ value: String(count), label: t('pages.tokens.form.count.option', '{count} 个', { count }) }))}
          />
        </Form.Item>
      )}
      <Form.Item name="unlimited_quota" label={t('pages.tokens.form.unlimited', '无限额度')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item name="model_limits_enabled" label={t('pages.tokens.form.modelLimitsEnabled', '启用模型限制')} valuePropName="checked">
        <Switch />
      </Form.Item>
      <Form.Item name="model_limits" label={t('pages.tokens.form.modelLimits', '模型限制列表')}>
        <Select
          mode="multiple"
          allowClear
          disabled={!limitsEnabled}
          placeholder={t('pages.tokens.form.modelLimits.placeholder', '请选择该令牌可以使用的模型')}
          options={models.map((model) => ({ value: model, label: model }))}
        />
      </Form.Item>
      <Form.Item name="allow_ips" label={t('pages.tokens.form.allowIps', 'IP 白名单')}>
        <Input.TextArea
          autoSize={{ minRows: 2, maxRows: 8 }}
          placeholder={t('pages.tokens.form.allowIps.placeholder', '允许的 IP，一行一个，不填写则不限制')}
        />
      </Form.Item>
      <Form.Item name="deny_ips" label={t('pages.tokens.form.denyIps', 'IP 黑名单')}>
        <Input.TextArea
          autoSize={{ minRows: 2, maxRows: 8 }}
          placeholder={t('pages.tokens.form.denyIps.placeholder', '拒绝的 IP 或网段（CIDR，IPv4 或 IPv6），一行一个；同时在白名单中时以黑名单为准')}
        />
      </Form.Item>
      <Divider titlePlacement="start" plain>
        {t('pages.tokens.form.rateLimits', '速率限制')}
      </Divider>
      <RateLimitFields name="rate_limits" use={use} />
      <Form.Item
        name="rate_limit_message"
        label={t('pages.tokens.form.rateLimitMessage', '限流提示内容')}
        rules={[
          {
            max: RATE_LIMIT_MESSAGE_MAX,
            message: t('pages.tokens.form.rateLimitMessage.max', '提示内容不能超过 {max} 个字符', { max: RATE_LIMIT_MESSAGE_MAX }),
          },
        ]}
      >
        <Input placeholder={t('pages.tokens.form.rateLimitMessage.placeholder', '超出本令牌的速率限制时返回给调用方的提示，留空则使用默认提示')} />
      </Form.Item>
      <Divider titlePlacement="start" plain>
        {t('pages.tokens.form.drawing', '绘图设置')}
      </Divider>
      <Form.Item
        name="drawing_modes"
        label={t('pages.tokens.form.drawingModes', '允许的绘图模式')}
        extra={t('pages.tokens.form.drawingModes.hint', '不选择则允许全部模式；限制后，绘图请求须用 /mj-relax/mj 等路径或提示词中的 --relax 等参数指明模式')}
      >
        <Select
          mode="multiple"
          allowClear
          placeholder={t('pages.tokens.form.drawingModes.placeholder', '全部模式')}
          options={DRAWING_MODES.map((mode) => ({ value: mode, label: t(drawingModeNames[mode].id, drawingModeNames[mode].defaultMessage) }))}
        />
      </Form.Item>
      <Space>
        <Button type="primary" htmlType="submit" loading={creating || updating}>
          {t('pages.tokens.form.submit', '提交')}
        </Button>
        <Button onClick={onDone}>{t('pages.tokens.form.cancel', '取消')}</Button>
      </Space>
    </Form>
  );
}
