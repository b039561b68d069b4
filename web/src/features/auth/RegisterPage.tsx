/** Filled in by its screen's work. */
export function RegisterPage() {
  return null;
}

export default RegisterPage;
