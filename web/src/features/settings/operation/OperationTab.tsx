import { ChatCard } from './ChatCard';
import { DashboardCard } from './DashboardCard';
import { DeadLettersCard } from './DeadLettersCard';
import { DrawingCard } from './DrawingCard';
import { GeneralCard } from './GeneralCard';
import { GroupCard } from './GroupCard';
import { JobsCard } from './JobsCard';
import { LimitsCard } from './LimitsCard';
import { LogCard } from './LogCard';
import { MonitoringCard } from './MonitoringCard';
import { QuotaCard } from './QuotaCard';
import { RatioCard } from './RatioCard';
import { SensitiveCard } from './SensitiveCard';

/** /setting?tab=operation (super admin): one card per option group, each saved on its own. */
export function OperationTab() {
  return (
    <>
      <GeneralCard />
      <DrawingCard />
      <SensitiveCard />
      <LogCard />
      <DashboardCard />
      <MonitoringCard />
      <JobsCard />
      <DeadLettersCard />
      <QuotaCard />
      <ChatCard />
      <GroupCard />
      <LimitsCard />
      <RatioCard />
    </>
  );
}

export default OperationTab;
