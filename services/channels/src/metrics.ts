import { CounterFamily } from '@aigw/platform';

/** Automatic disables and enables (health.ts; docs/architecture.md section 11). Channel ids are the admin's: bounded. */

const disabled = new CounterFamily({
  name: 'aigw_channels_auto_disabled_total',
  help: 'Channels (scope channel) and keys of multi-key channels (scope key) disabled automatically after upstream failures, by channel id.',
  labelNames: ['channel', 'scope'],
});

const enabled = new CounterFamily({
  name: 'aigw_channels_auto_enabled_total',
  help: 'Channels (scope channel) and keys (scope key) enabled again automatically after a success, by channel id.',
  labelNames: ['channel', 'scope'],
});

export function observeAutoDisabled(channelId: number, scope: 'channel' | 'key'): void {
  disabled.child(String(channelId), scope).inc();
}

export function observeAutoEnabled(channelId: number, scope: 'channel' | 'key'): void {
  enabled.child(String(channelId), scope).inc();
}
