import { TaskEntity } from './task.entity.js';

export { TaskEntity };

export const relayEntities = [TaskEntity];
