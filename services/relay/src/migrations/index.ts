import { RelayTasks1733500000000 } from './1733500000000-tasks.js';

export const relayMigrations = [RelayTasks1733500000000];
