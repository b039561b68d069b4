import type { Status } from '@aigw/contracts';

/** The chat clients an admin configured: the Chats option as [{name: url}], in order. */
export function chatLinks(status: Status | null): Array<{ name: string; url: string }> {
  return (status?.chats ?? []).flatMap((entry) => Object.entries(entry).map(([name, url]) => ({ name, url })));
}

/**
 * A chat client's link for a token: `{key}` becomes the full `sk-` key and `{address}` this
 * server's address, as the established product fills them (the clients read them raw).
 */
export function fillChatLink(template: string, key: string, address: string): string {
  return template.replaceAll('{key}', key).replaceAll('{address}', address.replace(/\/+$/, ''));
}

/** The server address chat clients should call. */
export function serverAddress(status: Status | null): string {
  return status?.server_address || window.location.origin;
}

/** Links a frame can show (web pages); app links (ama://, opencat://) are opened instead. */
export function isWebLink(link: string): boolean {
  return /^https?:\/\//i.test(link);
}
