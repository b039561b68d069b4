import type { z } from 'zod';
import type { eventSchemas, EventSubject } from './events.js';

/**
 * An example payload of every bus event, for integrators: docs/events.md shows each one beside
 * its JSON Schema (`npm run docs:events` regenerates it from this file and the doc comments of
 * the event map in events.ts). The type makes a missing event a compile error; a test parses
 * every example with its schema. Examples are what travels: every field present, defaults included.
 */
export const eventExamples: { [S in EventSubject]: z.output<(typeof eventSchemas)[S]> } = {
  'identity.user.registered': {
    user_id: 42, username: 'alice', display_name: 'Alice', email: 'alice@example.com', role: 1, status: 1, group: 'default',
    inviter_id: 7, source: 'register',
  },
  'identity.user.updated': { user_id: 42, username: 'alice', display_name: 'Alice L.', email: 'alice@example.com', role: 1, status: 1, group: 'vip' },
  'identity.user.deleted': { user_id: 42 },
  'identity.session.revoked': { user_id: 42, session_hash: null },
  'identity.option.updated': { key: 'QuotaRemindThreshold', value: '1000', secret: false, version: 3 },
  'notifier.mail.requested': {
    to: 'alice@example.com', template: 'verification_code', params: { code: '123456' }, locale: 'en-US',
  },
  'notifier.delivery.failed': {
    kind: 'webhook', delivery_id: 1287, target: 'https://hooks.example.com/aigw', topic: 'relay.usage.recorded', attempts: 6,
    error: 'HTTP 503: service unavailable',
  },
  'billing.balance.dropped': { user_id: 42, quota: 480_000, threshold: 500_000, request_id: 'req_01JD3Z8Q4M2X7T' },
  'billing.token.updated': {
    token_id: 9, user_id: 42, name: 'ci', status: 1, expired_time: -1, unlimited_quota: false, model_limits_enabled: true,
    model_limits: ['gpt-4o-mini'], allow_ips: [], group: 'default', owner_status: 1, owner_group: 'default', owner_role: 1,
    key_hash: '5f2b0c1d9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c',
  },
  'billing.token.deleted': { token_id: 9, user_id: 42, key_hash: '5f2b0c1d9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c' },
  'billing.account.updated': { user_id: 42, quota: 5_000_000, status: 1, group: 'default', role: 1 },
  'billing.topup.completed': {
    trade_no: 'USR42NOk3X9qZ1732600000', user_id: 42, quota: 5_000_000, money: '73.00', gateway: 'epay', payment_method: 'alipay',
    completed_by: 0, completed_at: 1_732_600_042,
  },
  'relay.usage.recorded': {
    request_id: 'req_01JD3Z8Q4M2X7T', user_id: 42, token_id: 9, token_name: 'ci', model_name: 'gpt-4o-mini', group: 'default',
    channel_id: 3, prompt_tokens: 21, completion_tokens: 180, quota: 1_134, use_time_ms: 2_410, is_stream: true,
    created_at: 1_732_600_000, content: '', other: { model_ratio: 0.075, completion_ratio: 4, group_ratio: 1, frt: 312 },
  },
  'relay.request.started': {
    record: {
      request_id: 'req_01JD3Z8Q4M2X7T', user_id: 42, token_id: 9, token_name: 'ci', model_name: 'gpt-4o-mini', group: 'default',
      channel_id: 3, prompt_tokens: 0, completion_tokens: 0, quota: 0, use_time_ms: 0, is_stream: true,
      created_at: 1_732_600_000, content: 'relay stopped mid-request; nothing was charged', other: { model_ratio: 0.075, completion_ratio: 4, group_ratio: 1, frt: -1 },
    },
    owner: 'relay-7d9f8c6b5-x2k4q:1#5c1e0a9b3f7d',
    expires_at: 1_732_603_700_000,
  },
  'channels.channel.updated': {
    id: 3, type: 1, name: 'openai-main', status: 1, groups: ['default', 'vip'], models: ['gpt-4o', 'gpt-4o-mini'],
    base_url: 'https://api.openai.com', other: '', model_mapping: {}, status_code_mapping: {}, param_override: {}, setting: {},
    priority: 0, weight: 1, tag: '', auto_ban: 1, openai_organization: '', allow_private_network: false, version: 12,
  },
  'channels.channel.disabled': { channel_id: 3, name: 'openai-main', reason: 'upstream answered 401: invalid api key', time: 1_732_600_000 },
  'channels.channel.deleted': { id: 3 },
  'identity.audit.recorded': {
    id: '0b6f1c1e-5d2a-4f7e-9a51-3c2d8e4f6a10', time: 1_732_600_000_123, service: 'identity',
    actor: { user_id: 1, username: 'root', role: 100 }, action: 'user.updated', target: { type: 'user', id: '42', label: 'alice' },
    before: { group: 'default', password: '***' }, after: { group: 'vip', password: '***' }, ip: '203.0.113.7',
  },
  'billing.audit.recorded': {
    id: '5e0c7a52-8b1d-4c3f-a6e2-91d04b7f2c33', time: 1_732_600_000_456, service: 'billing',
    actor: { user_id: 1, username: 'root', role: 100 }, action: 'user.quota_changed', target: { type: 'user', id: '42', label: 'alice' },
    before: { quota: 500_000 }, after: { quota: 5_500_000 }, ip: '203.0.113.7',
  },
  'channels.audit.recorded': {
    id: 'c4a9e2d1-7f3b-4e6a-8d05-2b1f9c8e7a44', time: 1_732_600_000_789, service: 'channels',
    actor: { user_id: 1, username: 'root', role: 100 }, action: 'channel.updated', target: { type: 'channel', id: '3', label: 'openai-main' },
    before: { base_url: 'https://api.openai.com', key: '***' }, after: { base_url: 'https://eu.api.openai.com', key: '***' }, ip: '203.0.113.7',
  },
  'notifier.audit.recorded': {
    id: '9d3b5f70-1c2e-4a8b-b7d6-e5f4a3c2b155', time: 1_732_600_001_012, service: 'notifier',
    actor: { user_id: 1, username: 'root', role: 100 }, action: 'webhook.created', target: { type: 'webhook', id: '2', label: 'https://hooks.example.com/aigw' },
    before: null, after: { url: 'https://hooks.example.com/aigw', subjects: ['*.audit.recorded'], description: 'audit export', enabled: true, secret: '***' },
    ip: '203.0.113.7',
  },
  'relay.channel.failed': {
    channel_id: 3, request_id: 'req_01JD3Z8Q4M2X7T', status_code: 429, error_code: 'rate_limit_exceeded', error_type: 'requests',
    message: 'Rate limit reached for gpt-4o-mini', test: false,
  },
  'relay.channel.succeeded': { channel_id: 3, response_time_ms: 840, test: true },
};
