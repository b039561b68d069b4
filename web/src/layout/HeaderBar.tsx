import { PRODUCT_NAME } from '@aigw/contracts';
import { Button, Dropdown, Flex, Layout, Menu, Segmented, Space, theme, Typography } from 'antd';
import { GlobalOutlined, LogoutOutlined, MenuOutlined, MoonOutlined, SunOutlined, DesktopOutlined, UserOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { Link, useLocation, useNavigate } from 'react-router';
import { feedback } from '../app/feedback';
import { useCurrentUser, useStatus } from '../app/hooks';
import { useIsMobile } from '../app/media';
import { localeChosen, localeCodes, themeModeChosen, type ThemeMode } from '../app/preferences';
import { signedOut } from '../app/session';
import { useAppDispatch, useAppSelector } from '../app/store';
import { useLogoutMutation } from '../features/auth/api';
import { locales } from '../locales';
import { topNavItems } from './menu-items';

const themeIcons: Record<ThemeMode, React.ReactNode> = { light: <SunOutlined />, dark: <MoonOutlined />, system: <DesktopOutlined /> };

/** Logo and name, the top navigation, theme and language switches, and the account menu. */
export function HeaderBar({ onOpenMenu }: { onOpenMenu?: () => void }) {
  const intl = useIntl();
  const navigate = useNavigate();
  const location = useLocation();
  const dispatch = useAppDispatch();
  const user = useCurrentUser();
  const status = useStatus();
  const isMobile = useIsMobile();
  const { locale, themeMode } = useAppSelector((state) => state.preferences);
  const [logout] = useLogoutMutation();
  const { token } = theme.useToken();

  const signOut = async () => {
    await logout()
      .unwrap()
      .catch(() => undefined);
    dispatch(signedOut());
    void navigate('/login');
    feedback.success({ id: 'layout.header.loggedOut', defaultMessage: '注销成功!' });
  };

  const logoutLabel = intl.formatMessage({ id: 'layout.header.logout', defaultMessage: '退出' });
  const selectedTop = topNavItems.find((item) => item.key === location.pathname)?.key;
  const themeLabels: Record<ThemeMode, string> = {
    light: intl.formatMessage({ id: 'layout.theme.light', defaultMessage: '日间模式' }),
    dark: intl.formatMessage({ id: 'layout.theme.dark', defaultMessage: '夜间模式' }),
    system: intl.formatMessage({ id: 'layout.theme.system', defaultMessage: '跟随系统' }),
  };

  return (
    <Layout.Header
      style={{
        display: 'flex',
        alignItems: 'center',
        gap: 16,
        padding: '0 16px',
        background: token.colorBgContainer,
        borderBottom: `1px solid ${token.colorBorderSecondary}`,
        position: 'sticky',
        top: 0,
        zIndex: 10,
      }}
    >
      {isMobile && onOpenMenu && (
        <Button
          type="text"
          icon={<MenuOutlined />}
          onClick={onOpenMenu}
          aria-label={intl.formatMessage({ id: 'layout.header.menu', defaultMessage: '菜单' })}
        />
      )}
      <Link to="/" style={{ display: 'flex', alignItems: 'center', gap: 8, flex: 'none' }}>
        <img src={status?.logo || '/logo.svg'} alt="" width={28} height={28} style={{ borderRadius: 6 }} />
        {!isMobile && (
          <Typography.Text strong style={{ fontSize: 16 }}>
            {status?.system_name || PRODUCT_NAME}
          </Typography.Text>
        )}
      </Link>
      <Menu
        mode="horizontal"
        selectedKeys={selectedTop ? [selectedTop] : []}
        style={{ flex: 1, minWidth: 0, borderBottom: 'none', background: 'transparent' }}
        items={topNavItems.map((item) => ({
          key: item.key,
          label: <Link to={item.key}>{intl.formatMessage({ id: item.labelId, defaultMessage: item.defaultLabel })}</Link>,
        }))}
      />
      <Space size={4}>
        {isMobile ? (
          <Dropdown
            menu={{
              items: (['light', 'dark', 'system'] as const).map((mode) => ({ key: mode, icon: themeIcons[mode], label: themeLabels[mode] })),
              selectable: true,
              selectedKeys: [themeMode],
              onClick: ({ key }) => dispatch(themeModeChosen(key as ThemeMode)),
            }}
          >
            <Button type="text" icon={themeIcons[themeMode]} aria-label={intl.formatMessage({ id: 'layout.header.theme', defaultMessage: '主题' })} />
          </Dropdown>
        ) : (
          <Segmented<ThemeMode>
            size="small"
            value={themeMode}
            onChange={(mode) => dispatch(themeModeChosen(mode))}
            aria-label={intl.formatMessage({ id: 'layout.header.theme', defaultMessage: '主题' })}
            options={(['light', 'dark', 'system'] as const).map((mode) => ({ value: mode, icon: themeIcons[mode], title: themeLabels[mode] }))}
          />
        )}
        <Dropdown
          menu={{
            items: localeCodes.map((code) => ({ key: code, label: locales[code].label })),
            selectable: true,
            selectedKeys: [locale],
            onClick: ({ key }) => dispatch(localeChosen(key as (typeof localeCodes)[number])),
          }}
        >
          <Button type="text" icon={<GlobalOutlined />} aria-label={intl.formatMessage({ id: 'layout.header.language', defaultMessage: '语言' })}>
            {!isMobile && locales[locale].label}
          </Button>
        </Dropdown>
        {user ? (
          <>
            {!isMobile && (
              <Typography.Text type="secondary" style={{ marginInline: 4 }}>
                <UserOutlined /> {user.display_name || user.username}
              </Typography.Text>
            )}
            <Button type="text" icon={<LogoutOutlined />} onClick={() => void signOut()} aria-label={logoutLabel}>
              {!isMobile && logoutLabel}
            </Button>
          </>
        ) : (
          <Flex gap={4}>
            <Button type="primary" onClick={() => void navigate('/login')}>
              {intl.formatMessage({ id: 'layout.header.login', defaultMessage: '登录' })}
            </Button>
            {!isMobile && (
              <Button onClick={() => void navigate('/register')}>{intl.formatMessage({ id: 'layout.header.register', defaultMessage: '注册' })}</Button>
            )}
          </Flex>
        )}
      </Space>
    </Layout.Header>
  );
}
