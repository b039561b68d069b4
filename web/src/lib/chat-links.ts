import type { Status } from '@aigw/contracts';

/** The chat clients an admin configured: the Chats option as [{name: url}], in order. */
export function chatLinks(status: Status | null): Array<{ name: string; url: string }> {
  return (status?.chats ?? []).flatMap((entry) => Object.entries(entry).map(([name, url]) => ({ name, url })));
}

/**
 * A chat client's link for a token: `{key}` becomes the whole `sk-` key and `{address}` this
 * server's address without a trailing slash, URL-encoded as the established product does: the
 * presets carry it inside a query or a fragment the client decodes (`?server={address}&key=...`,
 * `settings={"url":"{address}"}`), where a raw `&`, `#` or `?` in it would break the link.
 */
export function fillChatLink(template: string, key: string, address: string): string {
  const wholeKey = key.startsWith('sk-') ? key : `sk-${key}`;
  return template.replaceAll('{address}', encodeURIComponent(address.replace(/\/+$/, ''))).replaceAll('{key}', wholeKey);
}

/** The server address chat clients should call. */
export function serverAddress(status: Status | null): string {
  return status?.server_address || window.location.origin;
}

/** Links a frame can show (web pages); app links (ama://, opencat://) are opened instead. */
export function isWebLink(link: string): boolean {
  return /^https?:\/\//i.test(link);
}
