import { useCallback, useEffect, useRef, useState } from 'react';
import { App } from 'antd';
import { useIntl } from 'react-intl';
import { useStatus } from '../../app/hooks';

const SCRIPT_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

interface TurnstileApi {
  render(element: HTMLElement, options: { sitekey: string; callback: (token: string) => void; 'expired-callback'?: () => void }): string;
  remove(widgetId: string): void;
}

declare global {
  interface Window {
    turnstile?: TurnstileApi;
  }
}

let scriptLoading: Promise<void> | undefined;

function loadScript(): Promise<void> {
  scriptLoading ??= new Promise<void>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = SCRIPT_URL;
    script.async = true;
    script.onload = () => resolve();
    script.onerror = () => {
      scriptLoading = undefined;
      reject(new Error('the human-check script did not load'));
    };
    document.head.appendChild(script);
  });
  return scriptLoading;
}

/** The human-check state of a form: whether it is on, its token, and the wait message. */
export interface TurnstileGate {
  enabled: boolean;
  siteKey: string;
  token: string | undefined;
  setToken(token: string | undefined): void;
  /** True when the form may be sent; otherwise tells the user to wait for the check. */
  ready(): boolean;
}

export function useTurnstileGate(): TurnstileGate {
  const status = useStatus();
  const intl = useIntl();
  const { message } = App.useApp();
  const [token, setToken] = useState<string>();
  const enabled = Boolean(status?.turnstile_check && status.turnstile_site_key);
  const ready = useCallback(() => {
    if (!enabled || token) return true;
    void message.info(intl.formatMessage({ id: 'pages.turnstile.wait', defaultMessage: '请稍后几秒重试，Turnstile 正在检查用户环境！' }));
    return false;
  }, [enabled, intl, message, token]);
  return { enabled, siteKey: status?.turnstile_site_key ?? '', token, setToken, ready };
}

/** The human-check widget, rendered only when the server turned it on. */
export function Turnstile({ gate }: { gate: TurnstileGate }) {
  const container = useRef<HTMLDivElement>(null);
  const { enabled, siteKey, setToken } = gate;

  useEffect(() => {
    if (!enabled || !container.current) return;
    let widgetId: string | undefined;
    let cancelled = false;
    loadScript()
      .then(() => {
        if (cancelled || !container.current || !window.turnstile) return;
        widgetId = window.turnstile.render(container.current, { sitekey: siteKey, callback: setToken, 'expired-callback': () => setToken(undefined) });
      })
      .catch(() => setToken(undefined));
    return () => {
      cancelled = true;
      if (widgetId) window.turnstile?.remove(widgetId);
    };
  }, [enabled, siteKey, setToken]);

  if (!enabled) return null;
  return <div ref={container} style={{ marginBottom: 16, display: 'flex', justifyContent: 'center' }} />;
}
