/** Filled in by its screen's work. */
export function PricingPage() {
  return null;
}

export default PricingPage;
