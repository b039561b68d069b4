import { RelayTasks1733500000000 } from './1733500000000-tasks.js';
import { RelayTaskCharges1733600000000 } from './1733600000000-task-charges.js';
import { RelayDeadLetters1733900000000 } from './1733900000000-dead-letters.js';

export const relayMigrations = [RelayTasks1733500000000, RelayTaskCharges1733600000000, RelayDeadLetters1733900000000];
