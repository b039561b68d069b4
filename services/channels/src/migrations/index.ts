import { ChannelsInitial1732500000000 } from './1732500000000-initial.js';

export const channelsMigrations = [ChannelsInitial1732500000000];
