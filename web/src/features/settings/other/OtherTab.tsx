import { AboutCard, FooterCard, HomePageCard, LogoCard, NoticeCard, SystemNameCard } from './ContentCards';

/** /setting?tab=other (super admin): the site's content, one card per setting, each with its own save. */
export function OtherTab() {
  return (
    <>
      <NoticeCard />
      <SystemNameCard />
      <LogoCard />
      <HomePageCard />
      <AboutCard />
      <FooterCard />
    </>
  );
}

export default OtherTab;
