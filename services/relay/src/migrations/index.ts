import { RelayTasks1733500000000 } from './1733500000000-tasks.js';
import { RelayTaskCharges1733600000000 } from './1733600000000-task-charges.js';

export const relayMigrations = [RelayTasks1733500000000, RelayTaskCharges1733600000000];
