import { AccountEntity } from './account.entity.js';
import { LedgerEntryEntity } from './ledger-entry.entity.js';
import { LogEntity } from './log.entity.js';
import { QuotaDataEntity } from './quota-data.entity.js';
import { RedemptionEntity } from './redemption.entity.js';
import { TokenEntity } from './token.entity.js';
import { TopUpEntity } from './top-up.entity.js';
import { deadLetterEntities } from '@aigw/platform';
import { PendingRequestEntity } from './pending-request.entity.js';

export { AccountEntity, LedgerEntryEntity, LogEntity, PendingRequestEntity, QuotaDataEntity, RedemptionEntity, TokenEntity, TopUpEntity };
export { LedgerKind } from './ledger-entry.entity.js';

export const billingEntities = [
  AccountEntity,
  LedgerEntryEntity,
  TokenEntity,
  RedemptionEntity,
  LogEntity,
  QuotaDataEntity,
  TopUpEntity,
  PendingRequestEntity,
  deadLetterEntities.billing,
];
