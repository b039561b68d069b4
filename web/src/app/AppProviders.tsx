import { useEffect, type ReactNode } from 'react';
import { App as AntdApp, ConfigProvider, theme } from 'antd';
import dayjs from 'dayjs';
import { IntlProvider } from 'react-intl';
import { Provider } from 'react-redux';
import { locales } from '../locales';
import { defaultLocale } from './preferences';
import { FeedbackBridge } from './FeedbackBridge';
import { useIsDark } from './hooks';
import { useAppSelector, type AppStore } from './store';

function ThemedIntl({ children }: { children: ReactNode }) {
  const locale = useAppSelector((state) => state.preferences.locale);
  const dark = useIsDark();
  const bundle = locales[locale];

  useEffect(() => {
    dayjs.locale(bundle.dayjs);
    document.documentElement.lang = locale;
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
  }, [bundle.dayjs, dark, locale]);

  return (
    <IntlProvider locale={locale} defaultLocale={defaultLocale} messages={bundle.messages}>
      <ConfigProvider locale={bundle.antd} theme={{ algorithm: dark ? theme.darkAlgorithm : theme.defaultAlgorithm }}>
        <AntdApp>
          <FeedbackBridge />
          {children}
        </AntdApp>
      </ConfigProvider>
    </IntlProvider>
  );
}

/** Redux, the chosen language (react-intl + antd + dayjs) and theme, and antd's App context. */
export function AppProviders({ store, children }: { store: AppStore; children: ReactNode }) {
  return (
    <Provider store={store}>
      <ThemedIntl>{children}</ThemedIntl>
    </Provider>
  );
}
