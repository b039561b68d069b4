import { Divider, InputNumber } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

// One example per JSON option, shown in its help: the shapes are the contracts' (packages/contracts/src/limits.ts).
const DEFAULT_EXAMPLE = { rpm: 60, rpd: 10000, concurrency: 5 };
const GROUP_EXAMPLE = { vip: { rpm: 600, tpm: 2000000 } };
const MODEL_EXAMPLE = { 'gpt-4o': { rpm: 600, groups: { vip: { rpm: 1200 } } } };
const REQUEST_GROUP_EXAMPLE = { vip: [200, 100] };

const example = (value: object) => JSON.stringify(value);

/**
 * Usage limits (docs/architecture.md section 5.9): every user's default, per group and per model,
 * then the established product's per-user request limit under its own option keys. The JSON
 * fields are checked as the server checks them (OptionField runs the contracts' decoder), so a
 * bad set is refused on the field with the message naming it ("GroupRateLimits.vip.rpm: ...")
 * before anything is sent; a refusal by the server itself shows its message the same way.
 */
export function LimitsCard() {
  const t = useText();
  const minutes = t('pages.settings.operation.unit.minutes', '分钟');
  return (
    <OptionSection
      title={t('pages.settings.operation.limits.title', '速率限制')}
      saveLabel={t('pages.settings.operation.limits.save', '保存速率限制设置')}
      help={t(
        'pages.settings.operation.limits.help',
        '每项限制为 rpm（每分钟请求数）、rpd（每天请求数）、tpm（每分钟 Token 数）、tpd（每天 Token 数）、concurrency（同时进行的请求数），0 或不填表示不限制。用户自身的限制优先，其次是分组的，最后是默认的；令牌和渠道的限制在各自的编辑页设置。',
      )}
      keys={[
        'DefaultUserRateLimits',
        'GroupRateLimits',
        'ModelRateLimits',
        'ModelRequestRateLimitEnabled',
        'ModelRequestRateLimitDurationMinutes',
        'ModelRequestRateLimitCount',
        'ModelRequestRateLimitSuccessCount',
        'ModelRequestRateLimitGroup',
      ]}
    >
      <OptionField
        name="DefaultUserRateLimits"
        label={t('pages.settings.operation.limits.default', '用户默认限制')}
        extra={t('pages.settings.operation.limits.default.help', 'JSON 对象：每个用户的限制，用户自身或其分组未设置的项按此执行，例如：{example}', {
          example: example(DEFAULT_EXAMPLE),
        })}
      />
      <OptionField
        name="GroupRateLimits"
        label={t('pages.settings.operation.limits.group', '分组限制')}
        extra={t('pages.settings.operation.limits.group.help', 'JSON 对象：分组名称到该分组每个用户的限制，优先于默认限制，例如：{example}', {
          example: example(GROUP_EXAMPLE),
        })}
      />
      <OptionField
        name="ModelRateLimits"
        label={t('pages.settings.operation.limits.model', '模型限制')}
        extra={t(
          'pages.settings.operation.limits.model.help',
          'JSON 对象：模型名称到该模型全部调用合计的限制，groups 为该模型在某分组内的限制，例如：{example}',
          { example: example(MODEL_EXAMPLE) },
        )}
      />
      <Divider titlePlacement="start" plain>
        {t('pages.settings.operation.limits.request', '用户模型请求速率限制')}
      </Divider>
      <OptionField
        name="ModelRequestRateLimitEnabled"
        label={t('pages.settings.operation.limits.request.enabled', '启用用户模型请求速率限制')}
        extra={t('pages.settings.operation.limits.request.enabled.help', '开启后，每个用户在每个限制周期内的请求次数和成功次数受下列限制')}
      />
      <FieldGrid>
        <OptionField
          name="ModelRequestRateLimitDurationMinutes"
          label={t('pages.settings.operation.limits.request.duration', '限制周期')}
          extra={t('pages.settings.operation.limits.request.duration.help', '频率限制的周期，1 到 1440 分钟')}
          input={<InputNumber min={1} max={1440} precision={0} suffix={minutes} style={{ width: '100%' }} />}
        />
        <OptionField
          name="ModelRequestRateLimitCount"
          label={t('pages.settings.operation.limits.request.count', '用户每周期最多请求次数')}
          extra={t('pages.settings.operation.limits.request.count.help', '包括失败请求的次数，0 表示不限制')}
          input={<InputNumber min={0} precision={0} style={{ width: '100%' }} />}
        />
        <OptionField
          name="ModelRequestRateLimitSuccessCount"
          label={t('pages.settings.operation.limits.request.success', '用户每周期最多请求完成次数')}
          extra={t('pages.settings.operation.limits.request.success.help', '只包括请求成功的次数，0 表示不限制')}
          input={<InputNumber min={0} precision={0} style={{ width: '100%' }} />}
        />
      </FieldGrid>
      <OptionField
        name="ModelRequestRateLimitGroup"
        label={t('pages.settings.operation.limits.request.group', '分组速率限制')}
        extra={t(
          'pages.settings.operation.limits.request.group.help',
          'JSON 对象：分组名称到 [最多请求次数, 最多请求完成次数]，覆盖该分组用户的上面两项，例如：{example}',
          { example: example(REQUEST_GROUP_EXAMPLE) },
        )}
      />
    </OptionSection>
  );
}
