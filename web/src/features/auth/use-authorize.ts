import { useState } from 'react';
import { useStatus } from '../../app/hooks';
import { useOauthStateMutation } from './api';
import { authorizeUrl, type OAuthProvider } from './oauth-urls';

/**
 * Opens a provider's authorization page in a new window, for logging in (ThirdPartyLogin) and for
 * binding (BindingsCard) alike. The state from the server ties the provider's answer to this
 * browser; `aff` lets the server credit the inviter when a third-party login creates the account.
 * `opening` is the provider whose state is being fetched, for its button's spinner.
 */
export function useAuthorize() {
  const status = useStatus();
  const [oauthState] = useOauthStateMutation();
  const [opening, setOpening] = useState<OAuthProvider | null>(null);

  const authorize = async (provider: OAuthProvider, aff?: string) => {
    if (!status) return;
    setOpening(provider);
    const state = await oauthState({ aff })
      .unwrap()
      .catch(() => null);
    setOpening(null);
    if (state) window.open(authorizeUrl(provider, status, state), '_blank', 'noopener');
  };

  return { opening, authorize };
}
