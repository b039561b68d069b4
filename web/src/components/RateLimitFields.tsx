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

/** Each limit's name, also where a set is only shown (the personal settings). */
export const rateLimitLabels: Record<RateLimitField, { id: string; defaultMessage: string }> = {
  rpm: { id: 'common.limits.rpm', defaultMessage: '每分钟请求数 (RPM)' },
  rpd: { id: 'common.limits.rpd', defaultMessage: '每天请求数 (RPD)' },
  tpm: { id: 'common.limits.tpm', defaultMessage: '每分钟 Token 数 (TPM)' },
  tpd: { id: 'common.limits.tpd', defaultMessage: '每天 Token 数 (TPD)' },
  concurrency: { id: 'common.limits.concurrency', defaultMessage: '同时进行的请求数' },
};

interface RateLimitFieldsProps {
  /** The form path of the set (`rate_limits`, or a list path in a map editor). */
  name: Array<string | number> | string;
  /** What the limits have counted now (GET /api/limits/use), shown under each where it is set (docs/architecture.md section 5.9). */
  use?: LimitUse[];
}

/**
 * The five limits of a scope (docs/architecture.md section 5.9): requests and tokens per minute
 * and per day, requests at once; blank or 0 is unlimited. Each shows its current use when known
 * and meaningful ("当前已用 312"; for concurrency, the requests in flight).
 */
export function RateLimitFields({ name, use }: RateLimitFieldsProps) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const path = Array.isArray(name) ? name : [name];
  const values = Form.useWatch(path) as RateLimitValues | undefined;
  // The relay counts a window only while some limit applies to it, so an open field's count is
  // 0 whatever was sent: shown there, "0" would read as "nothing used". A count above 0 is shown
  // even beside a blank field: a user's window also counts for the group's or the default limit.
  const currentUse = (field: RateLimitField) => use?.find((entry) => entry.field === field && (entry.used > 0 || (values?.[field] ?? 0) > 0));
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
                label={t(rateLimitLabels[field])}
                extra={current ? t({ id: 'common.limits.use', defaultMessage: '当前已用 {used}' }, { used: intl.formatNumber(current.used) }) : undefined}
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
