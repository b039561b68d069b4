import { useCallback } from 'react';
import { useIntl } from 'react-intl';

export type Text = (id: string, defaultMessage: string, values?: Record<string, string | number>) => string;

/** `intl.formatMessage` in a short form, for screens with many labels and help lines. */
export function useText(): Text {
  const intl = useIntl();
  return useCallback((id, defaultMessage, values) => intl.formatMessage({ id, defaultMessage }, values), [intl]);
}
