import { createApi } from '@reduxjs/toolkit/query/react';
import { envelopeBaseQuery } from './base-query';

/**
 * The one RTK Query API of the gateway's `/api` (one slice per base URL, so tag invalidation
 * works across features). Each feature injects its endpoints from `features/<feature>/api.ts`.
 */
export const api = createApi({
  reducerPath: 'api',
  baseQuery: envelopeBaseQuery,
  tagTypes: [
    'Status',
    'Self',
    'User',
    'Group',
    'Option',
    'Model',
    'Token',
    'Channel',
    'ChannelKeys',
    'Redemption',
    'Log',
    'Data',
    'Pricing',
    'Task',
    'UserSetting',
  ],
  // Every screen shows fresh figures when it is opened again.
  refetchOnMountOrArgChange: 30,
  endpoints: () => ({}),
});
