// Every area's messages; one module per area (STYLE 20).
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
};
