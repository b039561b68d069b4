import { useMemo } from 'react';
import { useIntl } from 'react-intl';
import { useFormatQuota } from '../../app/hooks';

/**
 * Formats the balance figures of admin user rows. They are null while billing did not answer:
 * shown as unavailable, never as 0 (a 0 on screen is a 0 an admin may save).
 */
export function useBalanceFormat() {
  const intl = useIntl();
  const formatQuota = useFormatQuota();
  return useMemo(() => {
    const unknown = intl.formatMessage({ id: 'pages.users.balance.unknown', defaultMessage: '暂不可用' });
    return {
      quota: (value: number | null) => (value === null ? unknown : formatQuota(value)),
      /** A count stays a number, for the message's own number format. */
      count: (value: number | null): number | string => value ?? unknown,
    };
  }, [intl, formatQuota]);
}
