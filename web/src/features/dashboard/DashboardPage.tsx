/** Filled in by its screen's work. */
export function DashboardPage() {
  return null;
}

export default DashboardPage;
