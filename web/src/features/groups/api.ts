import { api } from '../../api/api';

export const groupsApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/group/ (admin): the group names of the group ratio setting, for the user and channel group pickers. */
    groupNames: build.query<string[], void>({ query: () => '/group/', providesTags: ['Group'] }),
  }),
});

export const { useGroupNamesQuery } = groupsApi;
