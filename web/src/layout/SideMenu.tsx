import { Menu } from 'antd';
import { useIntl } from 'react-intl';
import { useLocation, useNavigate } from 'react-router';
import { useAccess, useStatus } from '../app/hooks';
import { sideMenuItems } from './menu-items';

/** The side navigation; `onNavigate` closes the mobile drawer after a choice. */
export function SideMenu({ onNavigate }: { onNavigate?: () => void }) {
  const intl = useIntl();
  const navigate = useNavigate();
  const location = useLocation();
  const access = useAccess();
  const status = useStatus();
  const items = sideMenuItems(access, status);
  // /channel/edit/3 highlights /channel; /chat/1 highlights its chat entry.
  const selected = location.pathname.startsWith('/chat/') ? location.pathname : `/${location.pathname.split('/')[1] ?? ''}`;

  return (
    <Menu
      mode="inline"
      selectedKeys={[selected]}
      defaultOpenKeys={location.pathname.startsWith('/chat/') ? ['chat'] : []}
      style={{ borderInlineEnd: 'none' }}
      onClick={({ key }) => {
        void navigate(key);
        onNavigate?.();
      }}
      items={items.map((item) => ({
        key: item.key,
        icon: item.icon,
        label: intl.formatMessage({ id: item.labelId, defaultMessage: item.defaultLabel }),
        children: item.children,
      }))}
    />
  );
}
