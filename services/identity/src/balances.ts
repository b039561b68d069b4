import { emptyBalance, type UserBalance } from '@aigw/contracts';
import { BusRequestError, requestTyped, type Bus, type Logger } from '@aigw/platform';

/**
 * Balances are billing's; identity shows them on user rows by one batched request per page.
 * While billing is not answering, every balance of the page is unknown (null), never zeros: an
 * editor shown 0 would save 0 over the real balance. A user billing has no account for yet has 0.
 */
export async function fetchBalances(bus: Bus, logger: Logger, userIds: number[]): Promise<Map<number, UserBalance | null>> {
  const result = new Map<number, UserBalance | null>();
  if (userIds.length === 0) return result;
  try {
    const { balances } = await requestTyped(bus, 'billing.account.balances', { user_ids: userIds }, { timeoutMs: 2_000 });
    for (const id of userIds) result.set(id, balances[String(id)] ?? { ...emptyBalance });
  } catch (error) {
    if (!(error instanceof BusRequestError)) throw error;
    logger.debug({ reason: error.reason }, 'balances unavailable; showing them as unknown');
    for (const id of userIds) result.set(id, null);
  }
  return result;
}

/**
 * The signed-in user's own figures (login answer, GET /api/user/self): zeros while billing is
 * not answering. Display only: nothing the user sends back carries a balance.
 */
export async function fetchOwnBalance(bus: Bus, logger: Logger, userId: number): Promise<UserBalance> {
  return (await fetchBalances(bus, logger, [userId])).get(userId) ?? { ...emptyBalance };
}
