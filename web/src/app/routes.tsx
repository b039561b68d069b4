import type { ComponentType } from 'react';
import { Spin } from 'antd';
import type { RouteObject } from 'react-router';
import { AppLayout } from '../layout/AppLayout';
import { NotFound } from '../features/misc/NotFound';
import { RequireAdmin, RequireLogin } from './guards';

/** A screen loaded on first visit, so the first page needs only the shell. */
const page = (load: () => Promise<{ default: ComponentType }>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

/** The console's routes with their guards (docs/product.md section 2). */
export const routes: RouteObject[] = [
  {
    element: <AppLayout />,
    // Shown while the first screen's code loads.
    hydrateFallbackElement: <Spin fullscreen />,
    children: [
      // public
      { path: '/', ...page(() => import('../features/home/HomePage')) },
      { path: '/about', ...page(() => import('../features/home/AboutPage')) },
      { path: '/login', ...page(() => import('../features/auth/LoginPage')) },
      { path: '/register', ...page(() => import('../features/auth/RegisterPage')) },
      { path: '/reset', ...page(() => import('../features/auth/ResetPage')) },
      { path: '/user/reset', ...page(() => import('../features/auth/ResetConfirmPage')) },
      { path: '/oauth/:provider', ...page(() => import('../features/auth/OAuthCallbackPage')) },
      { path: '/pricing', ...page(() => import('../features/pricing/PricingPage')) },
      // signed in
      {
        element: <RequireLogin />,
        children: [
          { path: '/setting', ...page(() => import('../features/settings/SettingsPage')) },
          { path: '/user/edit', ...page(() => import('../features/settings/personal/EditProfilePage')) },
          { path: '/token', ...page(() => import('../features/tokens/TokensPage')) },
          { path: '/playground', ...page(() => import('../features/playground/PlaygroundPage')) },
          { path: '/topup', ...page(() => import('../features/wallet/WalletPage')) },
          { path: '/log', ...page(() => import('../features/logs/LogsPage')) },
          { path: '/detail', ...page(() => import('../features/dashboard/DashboardPage')) },
          { path: '/midjourney', ...page(() => import('../features/tasks/DrawingPage')) },
          { path: '/task', ...page(() => import('../features/tasks/TasksPage')) },
          { path: '/chat/:id?', ...page(() => import('../features/chat/ChatPage')) },
          { path: '/chat2link', ...page(() => import('../features/chat/ChatRedirectPage')) },
        ],
      },
      // admin
      {
        element: <RequireAdmin />,
        children: [
          { path: '/user', ...page(() => import('../features/users/UsersPage')) },
          { path: '/user/edit/:id', ...page(() => import('../features/users/UsersPage')) },
          { path: '/channel', ...page(() => import('../features/channels/ChannelsPage')) },
          { path: '/channel/add', ...page(() => import('../features/channels/ChannelEditPage')) },
          { path: '/channel/edit/:id', ...page(() => import('../features/channels/ChannelEditPage')) },
          { path: '/redemption', ...page(() => import('../features/redemptions/RedemptionsPage')) },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
];
