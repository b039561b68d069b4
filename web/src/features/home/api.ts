import { api } from '../../api/api';

/** The admin-written texts: markdown, HTML or a URL. */
export const contentApi = api.injectEndpoints({
  endpoints: (build) => ({
    getHomePageContent: build.query<string, void>({ query: () => '/home_page_content', extraOptions: { silent: true } }),
    getAbout: build.query<string, void>({ query: () => '/about', extraOptions: { silent: true } }),
    getNotice: build.query<string, void>({ query: () => '/notice', extraOptions: { silent: true } }),
  }),
});

export const { useGetHomePageContentQuery, useGetAboutQuery, useGetNoticeQuery } = contentApi;
