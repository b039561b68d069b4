import { emptyBalance, type UserBalance } from '@aigw/contracts';
import { BusRequestError, requestTyped, type Bus, type Logger } from '@aigw/platform';

/**
 * Balances are billing's; identity shows them on user rows by one batched request per page.
 * While billing is not answering, rows show zeros rather than failing the page.
 */
export async function fetchBalances(bus: Bus, logger: Logger, userIds: number[]): Promise<Map<number, UserBalance>> {
  const result = new Map<number, UserBalance>();
  if (userIds.length === 0) return result;
  try {
    const { balances } = await requestTyped(bus, 'billing.account.balances', { user_ids: userIds }, { timeoutMs: 2_000 });
    for (const [id, balance] of Object.entries(balances)) result.set(Number(id), balance);
  } catch (error) {
    if (!(error instanceof BusRequestError)) throw error;
    logger.debug({ reason: error.reason }, 'balances unavailable; showing zeros');
  }
  for (const id of userIds) if (!result.has(id)) result.set(id, { ...emptyBalance });
  return result;
}
