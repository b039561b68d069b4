import { combineReducers, configureStore, createListenerMiddleware, isAnyOf } from '@reduxjs/toolkit';
import { useDispatch, useSelector } from 'react-redux';
import { api } from '../api/api';
import { storageKeys, write } from '../lib/storage';
import { preferencesSlice } from './preferences';
import { sessionSlice, signedIn, signedOut } from './session';

const rootReducer = combineReducers({
  [api.reducerPath]: api.reducer,
  session: sessionSlice.reducer,
  preferences: preferencesSlice.reducer,
});
export type RootState = ReturnType<typeof rootReducer>;

/**
 * A store; tests pass a preloaded state. Session and preferences are mirrored to browser storage.
 * `developmentChecks: false` drops Redux Toolkit's development-time state checks (component tests,
 * where they only cost time).
 */
/**
 * Whoever signs in or out (logout, deletion, an expired session) starts from an empty API
 * cache: nothing one user loaded may show to the next.
 */
function sessionChangeResetsCache() {
  const listener = createListenerMiddleware();
  listener.startListening({
    matcher: isAnyOf(signedIn, signedOut),
    effect: (_action, { dispatch }) => void dispatch(api.util.resetApiState()),
  });
  return listener.middleware;
}

export function createStore(preloadedState?: Partial<RootState>, { developmentChecks = true } = {}) {
  const store = configureStore({
    reducer: rootReducer,
    preloadedState: preloadedState as RootState | undefined,
    middleware: (getDefault) =>
      getDefault({ immutableCheck: developmentChecks, serializableCheck: developmentChecks }).prepend(sessionChangeResetsCache()).concat(api.middleware),
  });
  let previous = store.getState();
  store.subscribe(() => {
    const next = store.getState();
    if (next.session.user !== previous.session.user) write(storageKeys.user, next.session.user);
    if (next.session.status !== previous.session.status) write(storageKeys.status, next.session.status);
    const { preferences } = next;
    if (preferences !== previous.preferences) {
      write(storageKeys.locale, preferences.locale);
      write(storageKeys.themeMode, preferences.themeMode);
      write(storageKeys.pageSize, String(preferences.pageSize));
      if (preferences.sidebarCollapsed !== null) write(storageKeys.sidebarCollapsed, preferences.sidebarCollapsed);
    }
    previous = next;
  });
  return store;
}

export type AppStore = ReturnType<typeof createStore>;
export type AppDispatch = AppStore['dispatch'];

export const useAppDispatch = useDispatch.withTypes<AppDispatch>();
export const useAppSelector = useSelector.withTypes<RootState>();
