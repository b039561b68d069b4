import { useSyncExternalStore } from 'react';

/** Whether a media query matches, following changes (viewport width, system colour scheme). */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}

/** Mobile is a width of 600 or less (docs/product.md section 2). */
export const MOBILE_QUERY = '(max-width: 600px)';
export const useIsMobile = () => useMediaQuery(MOBILE_QUERY);

/** Drawer `size`: 600 wide on desktop, full width on mobile. */
export function useDrawerSize(): number | string {
  return useIsMobile() ? '100%' : 600;
}
