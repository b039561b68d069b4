/**
 * The established product's GETs that change state, POST here (rule R12; docs/security.md,
 * "Compatibility exceptions"). A GET of one answers 405 naming the method to use, instead of
 * falling through to whatever GET route its path matches (`/api/user/:id` for `/api/user/token`).
 */
const postOnlyPaths: RegExp[] = [
  /^\/api\/user\/(token|logout)$/,
  /^\/api\/(verification|reset_password)$/,
  /^\/api\/oauth\/(email\/bind|wechat|wechat\/bind|telegram\/login|telegram\/bind)$/,
  /^\/api\/channel\/(test|update_balance)(\/[^/]+)?$/,
];

/** Whether `url` (query ignored, one trailing slash allowed) is a GET the established product had that is POST here. */
export function isPostOnly(url: string): boolean {
  const path = url.split('?', 1)[0]!.replace(/(.)\/$/, '$1');
  return postOnlyPaths.some((pattern) => pattern.test(path));
}
