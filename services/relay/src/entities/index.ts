import { deadLetterEntities } from '@aigw/platform';
import { TaskEntity } from './task.entity.js';

export { TaskEntity };

export const relayEntities = [TaskEntity, deadLetterEntities.relay];
