import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { Status, User } from '@aigw/contracts';
import { readJson, storageKeys } from '../lib/storage';

/**
 * The signed-in user and the server status, mirrored to browser storage
 * (docs/product.md section 2) so a reload keeps both until the server answers.
 */
export interface SessionState {
  user: User | null;
  status: Status | null;
  /** The last sign-out was the server ending the session (401), not the user logging out. */
  expired: boolean;
}

export function loadSession(): SessionState {
  return { user: readJson<User>(storageKeys.user), status: readJson<Status>(storageKeys.status), expired: false };
}

export const sessionSlice = createSlice({
  name: 'session',
  initialState: loadSession,
  reducers: {
    signedIn(state, action: PayloadAction<User>) {
      state.user = action.payload;
      state.expired = false;
    },
    /** Fresh fields of the signed-in user (balance, display name...). */
    userUpdated(state, action: PayloadAction<Partial<User>>) {
      if (state.user) state.user = { ...state.user, ...action.payload };
    },
    signedOut(state, action: PayloadAction<{ expired: boolean } | undefined>) {
      state.user = null;
      state.expired = action.payload?.expired ?? false;
    },
    statusLoaded(state, action: PayloadAction<Status>) {
      state.status = action.payload;
    },
  },
});

export const { signedIn, userUpdated, signedOut, statusLoaded } = sessionSlice.actions;
