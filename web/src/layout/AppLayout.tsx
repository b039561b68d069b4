import { useState } from 'react';
import { Drawer, Layout, Spin, theme } from 'antd';
import { Outlet, useNavigation } from 'react-router';
import { useCurrentUser, useStatus } from '../app/hooks';
import { useIsMobile } from '../app/media';
import { sidebarToggled } from '../app/preferences';
import { useAppDispatch, useAppSelector } from '../app/store';
import { FooterBar } from './FooterBar';
import { HeaderBar } from './HeaderBar';
import { SideMenu } from './SideMenu';

/**
 * Header, a side menu for signed-in users (a drawer on mobile), the scrollable content area
 * and the footer.
 */
export function AppLayout() {
  const dispatch = useAppDispatch();
  const user = useCurrentUser();
  const status = useStatus();
  const isMobile = useIsMobile();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const chosenCollapsed = useAppSelector((state) => state.preferences.sidebarCollapsed);
  const collapsed = chosenCollapsed ?? status?.default_collapse_sidebar ?? false;
  const { token } = theme.useToken();
  const showMenu = user !== null;
  // Each screen is its own chunk (app/routes.tsx): the router keeps the current one until the
  // next has loaded, with a spinner when that takes a moment.
  const loadingScreen = useNavigation().state === 'loading';

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Spin fullscreen spinning={loadingScreen} delay={200} />
      <HeaderBar onOpenMenu={showMenu ? () => setDrawerOpen(true) : undefined} />
      <Layout>
        {showMenu && !isMobile && (
          <Layout.Sider
            collapsible
            collapsed={collapsed}
            onCollapse={(value) => dispatch(sidebarToggled(value))}
            width={200}
            theme="light"
            style={{ background: token.colorBgContainer, borderInlineEnd: `1px solid ${token.colorBorderSecondary}` }}
          >
            <SideMenu />
          </Layout.Sider>
        )}
        {showMenu && isMobile && (
          <Drawer placement="left" open={drawerOpen} onClose={() => setDrawerOpen(false)} size={240} styles={{ body: { padding: 0 } }}>
            <SideMenu onNavigate={() => setDrawerOpen(false)} />
          </Drawer>
        )}
        <Layout>
          <Layout.Content style={{ padding: isMobile ? 8 : 24, overflow: 'auto' }}>
            <Outlet />
          </Layout.Content>
          <FooterBar />
        </Layout>
      </Layout>
    </Layout>
  );
}
