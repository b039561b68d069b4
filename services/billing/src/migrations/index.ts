import { BillingInitial1732400000000 } from './1732400000000-initial.js';
import { AccountRole1732500000000 } from './1732500000000-account-role.js';

export const billingMigrations = [BillingInitial1732400000000, AccountRole1732500000000];
