/** Filled in by its screen's work. */
export function LogsPage() {
  return null;
}

export default LogsPage;
