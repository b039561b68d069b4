// Every area's messages; one module per area (style rule 20, CONTRIBUTING.md).
import common from './common';
import errors from './errors';
import layout from './layout';
import home from './home';
import auth from './auth';
import users from './users';
import settings from './settings';
import settingsPersonal from './settings-personal';
import settingsOperation from './settings-operation';
import settingsSystem from './settings-system';
import settingsOther from './settings-other';
import settingsWebhooks from './settings-webhooks';
import settingsAudit from './settings-audit';
import channels from './channels';
import tokens from './tokens';
import redemptions from './redemptions';
import wallet from './wallet';
import logs from './logs';
import dashboard from './dashboard';
import pricing from './pricing';
import playground from './playground';
import chat from './chat';
import tasks from './tasks';
import security from './security';

export default {
  ...common,
  ...errors,
  ...layout,
  ...home,
  ...auth,
  ...users,
  ...settings,
  ...settingsPersonal,
  ...settingsOperation,
  ...settingsSystem,
  ...settingsOther,
  ...settingsWebhooks,
  ...settingsAudit,
  ...channels,
  ...tokens,
  ...redemptions,
  ...wallet,
  ...logs,
  ...dashboard,
  ...pricing,
  ...playground,
  ...chat,
  ...tasks,
  ...security,
};
