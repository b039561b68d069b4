import type { ReactNode } from 'react';
import {
  ApiOutlined,
  AppstoreOutlined,
  BarChartOutlined,
  CheckSquareOutlined,
  CommentOutlined,
  CreditCardOutlined,
  FileTextOutlined,
  GiftOutlined,
  KeyOutlined,
  PictureOutlined,
  SettingOutlined,
  TeamOutlined,
} from '@ant-design/icons';
import type { Status } from '@aigw/contracts';
import type { Access } from '../access';
import { chatLinks } from '../lib/chat-links';

export interface SideMenuItem {
  key: string;
  /** Message id of the label. */
  labelId: string;
  defaultLabel: string;
  icon: ReactNode;
  children?: Array<{ key: string; label: string }>;
}

/**
 * The side navigation (docs/product.md section 2): admin-only items, and items that
 * depend on the cached server flags (chat links, data dashboard, drawing, tasks).
 */
export function sideMenuItems(access: Access, status: Status | null): SideMenuItem[] {
  const items: Array<SideMenuItem | false> = [
    { key: '/playground', labelId: 'layout.menu.playground', defaultLabel: '操练场', icon: <AppstoreOutlined /> },
    access.isAdmin && { key: '/channel', labelId: 'layout.menu.channel', defaultLabel: '渠道', icon: <ApiOutlined /> },
    chatLinks(status).length > 0 && {
      key: 'chat',
      labelId: 'layout.menu.chat',
      defaultLabel: '聊天',
      icon: <CommentOutlined />,
      children: chatLinks(status).map((link, index) => ({ key: `/chat/${index}`, label: link.name })),
    },
    { key: '/token', labelId: 'layout.menu.token', defaultLabel: '令牌', icon: <KeyOutlined /> },
    Boolean(status?.enable_data_export) && { key: '/detail', labelId: 'layout.menu.detail', defaultLabel: '数据看板', icon: <BarChartOutlined /> },
    access.isAdmin && { key: '/redemption', labelId: 'layout.menu.redemption', defaultLabel: '兑换码', icon: <GiftOutlined /> },
    { key: '/topup', labelId: 'layout.menu.topup', defaultLabel: '钱包', icon: <CreditCardOutlined /> },
    access.isAdmin && { key: '/user', labelId: 'layout.menu.user', defaultLabel: '用户管理', icon: <TeamOutlined /> },
    { key: '/log', labelId: 'layout.menu.log', defaultLabel: '日志', icon: <FileTextOutlined /> },
    Boolean(status?.enable_drawing) && { key: '/midjourney', labelId: 'layout.menu.midjourney', defaultLabel: '绘图', icon: <PictureOutlined /> },
    Boolean(status?.enable_task) && { key: '/task', labelId: 'layout.menu.task', defaultLabel: '异步任务', icon: <CheckSquareOutlined /> },
    { key: '/setting', labelId: 'layout.menu.setting', defaultLabel: '设置', icon: <SettingOutlined /> },
  ];
  return items.filter((item): item is SideMenuItem => item !== false);
}

/** The top navigation: home, console (the data dashboard), pricing, about. */
export const topNavItems = [
  { key: '/', labelId: 'layout.nav.home', defaultLabel: '首页' },
  { key: '/detail', labelId: 'layout.nav.console', defaultLabel: '控制台' },
  { key: '/pricing', labelId: 'layout.nav.pricing', defaultLabel: '模型价格' },
  { key: '/about', labelId: 'layout.nav.about', defaultLabel: '关于' },
] as const;
