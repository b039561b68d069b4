import type { UpdateSelfBody, UsableGroups, User } from '@aigw/contracts';
import { api } from '../../api/api';

/** The signed-in user's own record, groups and models, read by several screens. */
export const selfApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/user/self: the fresh own record (balance, usage, bindings, invite figures). */
    self: build.query<User, void>({ query: () => '/user/self', providesTags: ['Self'] }),
    /** The groups the user may use (token drawer, playground). */
    selfGroups: build.query<UsableGroups, void>({ query: () => '/user/self/groups', providesTags: ['Group'] }),
    /** The models the user's group may call (token model limits, playground). */
    selfModels: build.query<string[], void>({ query: () => '/user/models', providesTags: ['Model'] }),
    /** PUT /api/user/self: the own username and display name (the password has its own dialog). */
    updateSelf: build.mutation<null, Pick<UpdateSelfBody, 'username' | 'display_name'>>({
      query: (body) => ({ url: '/user/self', method: 'PUT', body }),
      invalidatesTags: (_result, error) => (error ? [] : ['Self']),
    }),
  }),
});

export const { useSelfQuery, useSelfGroupsQuery, useSelfModelsQuery, useUpdateSelfMutation } = selfApi;
