import { useEffect, useRef } from 'react';

const WIDGET_URL = 'https://telegram.org/js/telegram-widget.js?22';

/** What the Telegram login widget hands to its `data-onauth` function. */
type TelegramUser = Record<string, string | number | undefined | null>;

/** The fields the server checks the widget's hash over (docs/product.md section 4). */
const FIELDS = ['id', 'first_name', 'last_name', 'username', 'photo_url', 'auth_date', 'hash', 'lang'] as const;

/** The widget's answer as query parameters: only the fields it gave, as strings. */
export function telegramParams(user: TelegramUser): Record<string, string> {
  const params: Record<string, string> = {};
  for (const field of FIELDS) {
    const value = user[field];
    if (value !== undefined && value !== null && value !== '') params[field] = String(value);
  }
  return params;
}

/** Numbers the global callbacks, so every mounted widget has its own. */
let widgetCount = 0;

interface TelegramWidgetProps {
  botName: string;
  /** Telegram's button size: 'large' on the login pages, 'medium' in a settings row. */
  size: 'large' | 'medium';
  /** The widget's answer as the query the login and bind routes take (see telegramParams). */
  onAuth(params: Record<string, string>): void;
}

/**
 * The Telegram login widget, for logging in and for binding: Telegram's script renders its
 * button (an iframe) in place of the script tag and calls the global function named in
 * `data-onauth` after the user agrees, so the widget needs a function on `window`.
 */
export function TelegramWidget({ botName, size, onAuth }: TelegramWidgetProps) {
  const container = useRef<HTMLDivElement>(null);
  // The latest handler, so re-renders do not reload the widget.
  const handler = useRef(onAuth);
  useEffect(() => {
    handler.current = onAuth;
  });

  useEffect(() => {
    const host = container.current;
    if (!host || !botName) return;
    widgetCount += 1;
    const callbackName = `aigwTelegramAuth${widgetCount}`;
    const globals = window as unknown as Record<string, unknown>;
    globals[callbackName] = (user: TelegramUser) => handler.current(telegramParams(user));
    const script = document.createElement('script');
    script.src = WIDGET_URL;
    script.async = true;
    script.setAttribute('data-telegram-login', botName);
    script.setAttribute('data-size', size);
    script.setAttribute('data-request-access', 'write');
    script.setAttribute('data-onauth', `${callbackName}(user)`);
    host.appendChild(script);
    return () => {
      delete globals[callbackName];
      host.replaceChildren();
    };
  }, [botName, size]);

  return <div ref={container} style={{ display: 'flex', justifyContent: 'center' }} />;
}
