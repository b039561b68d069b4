import type { ReactNode } from 'react';
import { Input } from 'antd';
import type { OptionKey } from '@aigw/contracts';
import { RichContent } from '../../../components/RichContent';
import { isUrl, sanitizeHtml } from '../../../lib/sanitize';
import { OptionField, OptionSection } from '../OptionSection';
import { useText } from '../../../app/use-text';
import { ContentPreview } from './ContentPreview';

const textArea = <Input.TextArea autoSize={{ minRows: 6, maxRows: 20 }} />;

/** Markdown, HTML or a URL, shown as the pages that use it show it (sanitized, or in a frame). */
const rich = (title: string) => (text: string) => <RichContent content={text} title={title} />;

/** A card for one long text option, with its preview and its own save. */
function TextCard({
  name,
  title,
  saveLabel,
  help,
  render,
}: {
  name: OptionKey;
  title: string;
  saveLabel: string;
  help: string;
  render: (text: string) => ReactNode;
}) {
  return (
    <OptionSection title={title} saveLabel={saveLabel} keys={[name]}>
      {(form) => (
        <>
          <OptionField name={name} label={title} extra={help} input={textArea} />
          <ContentPreview form={form} name={name} render={render} />
        </>
      )}
    </OptionSection>
  );
}

export function NoticeCard() {
  const t = useText();
  const title = t('pages.settings.other.notice.title', '公告');
  return (
    <TextCard
      name="Notice"
      title={title}
      saveLabel={t('pages.settings.other.notice.save', '设置公告')}
      help={t('pages.settings.other.notice.help', '在此输入新的公告内容，支持 Markdown & HTML 代码')}
      render={rich(title)}
    />
  );
}

export function SystemNameCard() {
  const t = useText();
  const title = t('pages.settings.other.systemName.title', '系统名称');
  return (
    <OptionSection title={title} saveLabel={t('pages.settings.other.systemName.save', '设置系统名称')} keys={['SystemName']}>
      <OptionField
        name="SystemName"
        label={title}
        input={<Input maxLength={64} placeholder={t('pages.settings.other.systemName.placeholder', '在此输入系统名称')} />}
      />
    </OptionSection>
  );
}

/** Only web and site-relative addresses are shown as an image. */
function isImageUrl(text: string): boolean {
  return isUrl(text) || /^\/[^/\s]\S*$/.test(text.trim());
}

export function LogoCard() {
  const t = useText();
  const label = t('pages.settings.other.logo', 'Logo 图片地址');
  return (
    <OptionSection title={t('pages.settings.other.logo.title', 'Logo')} saveLabel={t('pages.settings.other.logo.save', '设置 Logo')} keys={['Logo']}>
      {(form) => (
        <>
          <OptionField name="Logo" label={label} input={<Input placeholder={t('pages.settings.other.logo.placeholder', '在此输入 Logo 图片地址')} />} />
          <ContentPreview
            form={form}
            name="Logo"
            render={(text) => (isImageUrl(text) ? <img src={text.trim()} alt={label} style={{ maxHeight: 64, maxWidth: '100%' }} /> : null)}
          />
        </>
      )}
    </OptionSection>
  );
}

export function HomePageCard() {
  const t = useText();
  const title = t('pages.settings.other.homePage.title', '首页内容');
  return (
    <TextCard
      name="HomePageContent"
      title={title}
      saveLabel={t('pages.settings.other.homePage.save', '设置首页内容')}
      help={t(
        'pages.settings.other.homePage.help',
        '在此输入首页内容，支持 Markdown & HTML 代码，设置后首页的默认内容将不再显示；如果输入的是一个链接，则会使用该链接作为 iframe 的地址，这允许你设置任意网页作为首页',
      )}
      render={rich(title)}
    />
  );
}

export function AboutCard() {
  const t = useText();
  const title = t('pages.settings.other.about.title', '关于');
  return (
    <TextCard
      name="About"
      title={title}
      saveLabel={t('pages.settings.other.about.save', '设置关于')}
      help={t(
        'pages.settings.other.about.help',
        '在此输入新的关于内容，支持 Markdown & HTML 代码；如果输入的是一个链接，则会使用该链接作为 iframe 的地址，这允许你设置任意网页作为关于页面',
      )}
      render={rich(title)}
    />
  );
}

export function FooterCard() {
  const t = useText();
  return (
    <TextCard
      name="Footer"
      title={t('pages.settings.other.footer.title', '页脚')}
      saveLabel={t('pages.settings.other.footer.save', '设置页脚')}
      help={t('pages.settings.other.footer.help', '在此输入新的页脚，留空则使用默认页脚，支持 HTML 代码')}
      // As the footer bar shows it: sanitized HTML, not markdown.
      render={(text) => <div dangerouslySetInnerHTML={{ __html: sanitizeHtml(text) }} />}
    />
  );
}
