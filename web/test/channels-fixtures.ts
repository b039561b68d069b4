import { waitFor, within } from '@testing-library/react';
import { Role, type ChannelView, type TagRow } from '@aigw/contracts';
import { makeUser } from './render';

/** Shared by the channels-*.test.tsx files: an admin, channel rows and list answers. */
export const admin = makeUser({ id: 1, username: 'root', role: Role.Root });

export function makeChannel(overrides: Partial<ChannelView> = {}): ChannelView {
  return {
    id: 1,
    type: 1,
    name: 'openai-main',
    status: 1,
    group: 'default',
    models: 'gpt-4o,gpt-4o-mini',
    base_url: '',
    other: '',
    model_mapping: '',
    status_code_mapping: '',
    param_override: '',
    setting: '',
    test_model: '',
    auto_ban: 1,
    tag: '',
    priority: 0,
    weight: 0,
    openai_organization: '',
    response_time: 0,
    balance: 0,
    balance_updated_time: 0,
    used_quota: 0,
    created_time: 1_700_000_000,
    test_time: 0,
    other_info: '',
    allow_private_network: false,
    multi_key: null,
    rate_limits: {},
    ...overrides,
  };
}

export function makeTagRow(tag: string, children: ChannelView[]): TagRow {
  return {
    tag,
    name: tag,
    type: children[0]?.type ?? 0,
    status: children.some((child) => child.status === 1) ? 1 : 2,
    channel_count: children.length,
    enabled_count: children.filter((child) => child.status === 1).length,
    group: 'default',
    models: 'gpt-4o',
    priority: 0,
    weight: 0,
    used_quota: 0,
    balance: 0,
    response_time: 0,
    children,
  };
}

export const page = (items: unknown[], total = items.length) => ({ items, total, page: 1, page_size: 10 });

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The button labelled `label` (antd puts a space between two Chinese characters), found by its text. */
export function buttonNamed(label: string, container: HTMLElement = document.body): HTMLElement {
  const pattern = new RegExp(`^\\s*${[...label].map(escape).join('\\s?')}\\s*$`);
  const found = within(container).getAllByText((_text, element) => element?.tagName === 'BUTTON' && pattern.test(element.textContent ?? ''));
  return found.at(-1)!;
}

/** Like `buttonNamed`, once it appears. */
export async function findButton(label: string, container: HTMLElement = document.body): Promise<HTMLElement> {
  let found: HTMLElement | undefined;
  await waitFor(() => {
    found = buttonNamed(label, container);
  });
  return found!;
}
