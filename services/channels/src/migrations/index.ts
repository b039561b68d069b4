import { ChannelsInitial1732500000000 } from './1732500000000-initial.js';
import { ChannelPrivateNetwork1733400000000 } from './1733400000000-channel-private-network.js';
import { ChannelInfo1733700000000 } from './1733700000000-channel-info.js';
import { ChannelRateLimits1733800000000 } from './1733800000000-channel-rate-limits.js';
import { ChannelsDeadLetters1733900000000 } from './1733900000000-dead-letters.js';

export const channelsMigrations = [
  ChannelsInitial1732500000000,
  ChannelPrivateNetwork1733400000000,
  ChannelInfo1733700000000,
  ChannelRateLimits1733800000000,
  ChannelsDeadLetters1733900000000,
];
