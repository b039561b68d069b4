import { useCallback } from 'react';
import { App } from 'antd';
import { useIntl } from 'react-intl';
import { errorMessages, type ApiError } from '../../api/base-query';

export const notFoundMessage = { id: 'pages.channels.notFound', defaultMessage: '渠道未找到，请刷新页面后重试。' };

/** The message of a failed channel call: a stale row (404) gets the product's hint (docs/product.md section 6), HTTP errors the shared texts. */
export function useFailureText(): (error: unknown) => string {
  const intl = useIntl();
  return useCallback(
    (error: unknown) => {
      const failure = error as Partial<ApiError> | undefined;
      if (failure?.status === 404) return intl.formatMessage(notFoundMessage);
      if (failure?.status === 429) return intl.formatMessage(errorMessages.tooManyRequests);
      if (failure?.status === 500) return intl.formatMessage(errorMessages.serverError);
      if (failure?.status === 405) return intl.formatMessage(errorMessages.demoSite);
      return failure?.message || intl.formatMessage({ id: 'pages.channels.failed', defaultMessage: '操作失败' });
    },
    [intl],
  );
}

/** Shows a failed channel call as an error toast (the calls by id are silent in the base query). */
export function useShowFailure(): (error: unknown) => void {
  const { message } = App.useApp();
  const text = useFailureText();
  return useCallback((error: unknown) => void message.error(text(error)), [message, text]);
}
