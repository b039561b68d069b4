import type { User } from '@aigw/contracts';
import { api } from '../../api/api';

/** Groups the user may pick, with their description and price ratio. */
export type UsableGroups = Record<string, { desc: string; ratio: number }>;

/** The signed-in user's own record, groups and models, read by several screens. */
export const selfApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** GET /api/user/self: the fresh own record (balance, usage, bindings, invite figures). */
    self: build.query<User, void>({ query: () => '/user/self', providesTags: ['Self'] }),
    /** The groups the user may use (token drawer, playground). */
    selfGroups: build.query<UsableGroups, void>({ query: () => '/user/self/groups', providesTags: ['Group'] }),
    /** The models the user's group may call (token model limits, playground). */
    selfModels: build.query<string[], void>({ query: () => '/user/models', providesTags: ['Model'] }),
  }),
});

export const { useSelfQuery, useSelfGroupsQuery, useSelfModelsQuery } = selfApi;
