import { OptionField, OptionSection } from '../OptionSection';
import { DomainTagsInput } from './DomainTagsInput';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** Which email addresses may register: a domain whitelist and the alias restriction. */
export function EmailWhitelistCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.email.title', '配置邮箱域名白名单')}
      saveLabel={t('pages.settings.system.email.save', '保存邮箱域名白名单设置')}
      keys={['EmailDomainRestrictionEnabled', 'EmailAliasRestrictionEnabled', 'EmailDomainWhitelist']}
    >
      <FieldGrid columns={2}>
        <OptionField
          name="EmailDomainRestrictionEnabled"
          label={t('pages.settings.system.email.domainRestriction', '启用邮箱域名白名单')}
          extra={t('pages.settings.system.email.domainRestriction.help', '开启后，只有白名单中域名的邮箱可以注册')}
        />
        <OptionField
          name="EmailAliasRestrictionEnabled"
          label={t('pages.settings.system.email.aliasRestriction', '启用邮箱别名限制')}
          extra={t('pages.settings.system.email.aliasRestriction.help', '开启后，邮箱用户名中不能包含 + 和 .')}
        />
      </FieldGrid>
      <OptionField name="EmailDomainWhitelist" label={t('pages.settings.system.email.whitelist', '允许的邮箱域名')} input={<DomainTagsInput />} />
    </OptionSection>
  );
}
