import { BillingInitial1732400000000 } from './1732400000000-initial.js';

export const billingMigrations = [BillingInitial1732400000000];
