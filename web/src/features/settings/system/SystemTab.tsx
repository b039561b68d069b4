import { EmailWhitelistCard } from './EmailWhitelistCard';
import { LoginSwitchesCard } from './LoginSwitchesCard';
import { GitHubCard, LinuxDOCard, OidcCard } from './OAuthCards';
import { PaymentCard } from './PaymentCard';
import { TelegramCard, TurnstileCard, WeChatCard, WxPusherCard } from './ProviderCards';
import { GeneralCard, WorkerCard } from './ServerCards';
import { SmtpCard } from './SmtpCard';
import { PasskeyCard } from './PasskeyCard';

/** /setting?tab=system (super admin): one card per option group, each saved on its own. */
export function SystemTab() {
  return (
    <>
      <GeneralCard />
      <WorkerCard />
      <PaymentCard />
      <LoginSwitchesCard />
      <EmailWhitelistCard />
      <SmtpCard />
      <GitHubCard />
      <WeChatCard />
      <TelegramCard />
      <WxPusherCard />
      <TurnstileCard />
      <LinuxDOCard />
      <OidcCard />
      <PasskeyCard />
    </>
  );
}

export default SystemTab;
