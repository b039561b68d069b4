import { Col, Form, InputNumber, Row, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { rateLimitFields, type LimitUse, type RateLimitField, type RateLimits } from '@aigw/contracts';

/** The form's values of a limit set: a number or blank per field. */
export type RateLimitValues = Partial<Record<RateLimitField, number | null>>;

/** The limit set a form sends: only the fields set above 0 (blank and 0 are unlimited). */
export function rateLimitsFromForm(values: RateLimitValues | undefined): RateLimits {
  return Object.fromEntries(rateLimitFields.flatMap((field) => (values?.[field] ? [[field, values[field]]] : [])));
}

/** Whether two limit sets say the same (an edit sends the set only when it changed). */
export function sameRateLimits(a: RateLimits, b: RateLimits): boolean {
  return rateLimitFields.every((field) => (a[field] ?? 0) === (b[field] ?? 0));
}

const labels: Record<RateLimitField, { id: string; defaultMessage: string }> = {
  rpm: { id: 'common.limits.rpm', defaultMessage: '每分钟请求数 (RPM)' },
  rpd: { id: 'common.limits.rpd', defaultMessage: '每天请求数 (RPD)' },
  tpm: { id: 'common.limits.tpm', defaultMessage: '每分钟 Token 数 (TPM)' },
  tpd: { id: 'common.limits.tpd', defaultMessage: '每天 Token 数 (TPD)' },
  concurrency: { id: 'common.limits.concurrency', defaultMessage: '同时进行的请求数' },
};

interface RateLimitFieldsProps {
  /** The form path of the set (`rate_limits`, or a list path in a map editor). */
  name: Array<string | number> | string;
  /** What the limits have used now, shown under each (where the limit is set, docs/architecture.md section 5.9). */
  use?: LimitUse[];
}

/**
 * The five limits of a scope (docs/architecture.md section 5.9): requests and tokens per minute
 * and per day, requests at once; blank or 0 is unlimited. Each shows its current use when known
 * ("312 of 1,000 today").
 */
export function RateLimitFields({ name, use }: RateLimitFieldsProps) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const path = Array.isArray(name) ? name : [name];
  const currentUse = (field: RateLimitField) => use?.find((entry) => entry.field === field);
  return (
    <>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
        {t({ id: 'common.limits.help', defaultMessage: '留空或 0 表示不限制；超出时请求被拒绝（HTTP 429）并告知何时可以重试。' })}
      </Typography.Paragraph>
      <Row gutter={12}>
        {rateLimitFields.map((field) => {
          const current = currentUse(field);
          return (
            <Col key={field} xs={24} sm={12} md={8}>
              <Form.Item
                name={[...path, field]}
                label={t(labels[field])}
                extra={
                  current
                    ? t(
                        { id: 'common.limits.use', defaultMessage: '当前已用 {used} / {limit}' },
                        { used: intl.formatNumber(current.used), limit: intl.formatNumber(current.limit) },
                      )
                    : undefined
                }
              >
                <InputNumber<number> min={0} precision={0} max={1_000_000_000} style={{ width: '100%' }} placeholder="0" />
              </Form.Item>
            </Col>
          );
        })}
      </Row>
    </>
  );
}
