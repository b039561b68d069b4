import { useCallback } from 'react';
import { App } from 'antd';
import { useIntl } from 'react-intl';
import { useTestChannelMutation, useUpdateBalanceMutation } from './api';
import { useShowFailure } from './use-failure';

/** Tests a channel (its test model, or `model`) and says how long it took. */
export function useTestChannel(): (channel: { id: number; name: string }, model?: string) => Promise<void> {
  const intl = useIntl();
  const { message } = App.useApp();
  const showFailure = useShowFailure();
  const [test] = useTestChannelMutation();
  return useCallback(
    async (channel, model) => {
      try {
        const { time } = await test({ id: channel.id, model }).unwrap();
        void message.success(
          intl.formatMessage(
            { id: 'pages.channels.test.done', defaultMessage: '通道 {name} 测试成功，耗时 {time} 秒。' },
            { name: channel.name, time: time.toFixed(2) },
          ),
        );
      } catch (error) {
        showFailure(error);
      }
    },
    [intl, message, showFailure, test],
  );
}

/** Asks the upstream for a channel's balance and shows it in the row. */
export function useUpdateBalance(): (channel: { id: number; name: string }) => Promise<void> {
  const intl = useIntl();
  const { message } = App.useApp();
  const showFailure = useShowFailure();
  const [update] = useUpdateBalanceMutation();
  return useCallback(
    async (channel) => {
      try {
        await update(channel.id).unwrap();
        void message.success(intl.formatMessage({ id: 'pages.channels.balance.done', defaultMessage: '通道 {name} 余额更新成功！' }, { name: channel.name }));
      } catch (error) {
        showFailure(error);
      }
    },
    [intl, message, showFailure, update],
  );
}
