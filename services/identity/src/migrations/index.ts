import { Initial1732300000000 } from './1732300000000-initial.js';
import { UserLanguage1732700000000 } from './1732700000000-user-language.js';
import { UserOidcId1732800000000 } from './1732800000000-user-oidc-id.js';
import { TwoFactor1733200000000 } from './1733200000000-two-factor.js';
import { UsernameKey1733300000000 } from './1733300000000-username-key.js';
import { AuditRecords1733400000000 } from './1733400000000-audit-records.js';
import { UserRateLimits1733700000000 } from './1733700000000-user-rate-limits.js';
import { IdentityDeadLetters1733900000000 } from './1733900000000-dead-letters.js';
import { NotificationSettings1734100000000 } from './1734100000000-notification-settings.js';

export const identityMigrations = [
  Initial1732300000000,
  UserLanguage1732700000000,
  UserOidcId1732800000000,
  TwoFactor1733200000000,
  UsernameKey1733300000000,
  AuditRecords1733400000000,
  UserRateLimits1733700000000,
  IdentityDeadLetters1733900000000,
  NotificationSettings1734100000000,
];
