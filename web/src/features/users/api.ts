import type { CreateUserBody, ManageUserBody, ManageUserResult, Page, PageQuery, UpdateUserBody, UserRow, UserSearchQuery } from '@aigw/contracts';
import { api } from '../../api/api';

/**
 * One page of the user table: the plain list, or a search when a keyword or group is set. `p` is
 * 0 on first load, 1-based afterwards (the server reads 0 and 1 as the first page).
 */
export type UserPageArgs = UserSearchQuery & PageQuery;

const LIST = { type: 'User', id: 'LIST' } as const;

export const usersApi = api.injectEndpoints({
  endpoints: (build) => ({
    userPage: build.query<Page<UserRow>, UserPageArgs>({
      query: ({ keyword, group, p, page_size }) =>
        keyword || group ? { url: '/user/search', params: { keyword, group, p, page_size } } : { url: '/user/', params: { p, page_size } },
      // Only the list tag: a manage action patches the cached rows instead of refetching them.
      providesTags: [LIST],
    }),
    userById: build.query<UserRow, number>({
      query: (id) => `/user/${id}`,
      // The edit drawer and the logs' user popup show the failure themselves.
      extraOptions: { silent: true },
      providesTags: (_result, _error, id) => [{ type: 'User', id }],
    }),
    createUser: build.mutation<null, CreateUserBody>({
      query: (body) => ({ url: '/user/', method: 'POST', body }),
      invalidatesTags: [LIST],
    }),
    updateUser: build.mutation<null, UpdateUserBody>({
      query: (body) => ({ url: '/user/', method: 'PUT', body }),
      invalidatesTags: (_result, error, body) => (error ? [] : [LIST, { type: 'User', id: body.id }]),
    }),
    manageUser: build.mutation<ManageUserResult, ManageUserBody>({
      query: (body) => ({ url: '/user/manage', method: 'POST', body }),
      invalidatesTags: (_result, error, { id }) => (error ? [] : [{ type: 'User', id }]),
      /** Every cached page showing the row takes the role and status the server answered. */
      async onQueryStarted({ id, action }, { dispatch, getState, queryFulfilled }) {
        const { data } = await queryFulfilled.catch(() => ({ data: null }));
        if (!data) return;
        const deletedAt = action === 'delete' ? new Date().toISOString() : null;
        for (const args of usersApi.util.selectCachedArgsForQuery(getState(), 'userPage')) {
          dispatch(
            usersApi.util.updateQueryData('userPage', args, (draft) => {
              const row = draft.items.find((item) => item.id === id);
              if (!row) return;
              row.role = data.role;
              row.status = data.status;
              if (deletedAt) row.DeletedAt = deletedAt;
            }),
          );
        }
      },
    }),
  }),
});

export const { useUserPageQuery, useUserByIdQuery, useCreateUserMutation, useUpdateUserMutation, useManageUserMutation } = usersApi;
