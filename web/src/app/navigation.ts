/**
 * Navigation for code outside React (the base query's 401 redirect). main.tsx connects it to
 * the router; tests may connect a spy.
 */
type Navigate = (to: string, options?: { replace?: boolean }) => void;

let navigateTo: Navigate = (to) => window.location.assign(to);

export function setNavigate(navigate: Navigate): void {
  navigateTo = navigate;
}

export function navigate(to: string, options?: { replace?: boolean }): void {
  navigateTo(to, options);
}

export function currentPath(): string {
  return window.location.pathname;
}
