/** Filled in by its screen's work. */
export function WalletPage() {
  return null;
}

export default WalletPage;
