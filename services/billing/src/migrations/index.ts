import { BillingInitial1732400000000 } from './1732400000000-initial.js';
import { AccountRole1732500000000 } from './1732500000000-account-role.js';
import { TopUps1732900000000 } from './1732900000000-top-ups.js';
import { PendingRequests1733000000000 } from './1733000000000-pending-requests.js';
import { LedgerActor1733100000000 } from './1733100000000-ledger-actor.js';
import { RateLimits1733700000000 } from './1733700000000-rate-limits.js';
import { BillingDeadLetters1733900000000 } from './1733900000000-dead-letters.js';
import { TokenGuards1734300000000 } from './1734300000000-token-guards.js';

export const billingMigrations = [
  BillingInitial1732400000000,
  AccountRole1732500000000,
  TopUps1732900000000,
  PendingRequests1733000000000,
  LedgerActor1733100000000,
  RateLimits1733700000000,
  BillingDeadLetters1733900000000,
  TokenGuards1734300000000,
];
