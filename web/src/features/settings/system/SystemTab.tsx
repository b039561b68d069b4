/** Filled in by its screen's work. */
export function SystemTab() {
  return null;
}

export default SystemTab;
