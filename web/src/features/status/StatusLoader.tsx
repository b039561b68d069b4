import { useEffect } from 'react';
import { App } from 'antd';
import { useIntl } from 'react-intl';
import { statusLoaded } from '../../app/session';
import { useAppDispatch } from '../../app/store';
import { useGetStatusQuery } from './api';

/**
 * Loads /api/status when the console opens and keeps the browser's copy current; says so
 * when the server cannot be reached (the cached copy, if any, stays in use).
 */
export function StatusLoader() {
  const dispatch = useAppDispatch();
  const intl = useIntl();
  const { message } = App.useApp();
  const { data, error } = useGetStatusQuery();

  useEffect(() => {
    if (data) dispatch(statusLoaded(data));
  }, [data, dispatch]);

  useEffect(() => {
    if (!error) return;
    const unreachable = 'status' in error && error.status === 'NETWORK';
    void message.error(
      intl.formatMessage(
        unreachable ? { id: 'errors.network', defaultMessage: '无法连接到服务器' } : { id: 'errors.status.failed', defaultMessage: '加载状态失败' },
      ),
    );
  }, [error, intl, message]);

  useEffect(() => {
    if (data?.system_name) document.title = data.system_name;
  }, [data?.system_name]);

  return null;
}
