import { deadLetterEntities } from '@aigw/platform';
import { AbilityEntity } from './ability.entity.js';
import { ChannelEntity } from './channel.entity.js';

export { AbilityEntity, ChannelEntity };

export const channelsEntities = [ChannelEntity, AbilityEntity, deadLetterEntities.channels];
