import { useEffect, useRef } from 'react';

const WIDGET_SCRIPT = 'https://telegram.org/js/telegram-widget.js?22';
let widgetCount = 0;

/** The widget's callbacks live on `window` under a name unique to each mounted widget. */
type CallbackHost = Record<string, ((user: Record<string, unknown>) => void) | undefined>;

/**
 * Telegram's login widget (a script that renders its own button); what it hands back (id, names,
 * photo_url, auth_date, hash) goes to `onAuth` as strings, ready to forward as a query.
 */
export function TelegramBindWidget({ botName, onAuth }: { botName: string; onAuth(fields: Record<string, string>): void }) {
  const container = useRef<HTMLDivElement>(null);
  const latest = useRef(onAuth);
  useEffect(() => {
    latest.current = onAuth;
  });

  useEffect(() => {
    const element = container.current;
    if (!element || !botName) return;
    widgetCount += 1;
    const callbackName = `aigwTelegramBind${widgetCount}`;
    const host = window as unknown as CallbackHost;
    host[callbackName] = (user) => {
      const fields = Object.entries(user).filter(([, value]) => value !== undefined && value !== null);
      latest.current(Object.fromEntries(fields.map(([key, value]) => [key, String(value)])));
    };
    const script = document.createElement('script');
    script.src = WIDGET_SCRIPT;
    script.async = true;
    script.setAttribute('data-telegram-login', botName);
    script.setAttribute('data-size', 'medium');
    script.setAttribute('data-request-access', 'write');
    script.setAttribute('data-onauth', `${callbackName}(user)`);
    element.appendChild(script);
    return () => {
      delete host[callbackName];
      element.replaceChildren();
    };
  }, [botName]);

  return <div ref={container} />;
}
