/** Filled in by its screen's work. */
export function UsersPage() {
  return null;
}

export default UsersPage;
