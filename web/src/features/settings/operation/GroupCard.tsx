import { OptionField, OptionSection, type OptionFormValues } from '../OptionSection';
import { useText, type Text } from '../../../app/use-text';

/** The user-selectable groups that have no ratio (a group must be priced to be offered). */
export function groupsWithoutRatio(values: OptionFormValues): string[] {
  try {
    const ratios = JSON.parse(String(values.GroupRatio ?? '{}')) as Record<string, unknown>;
    const usable = JSON.parse(String(values.UserUsableGroups ?? '{}')) as Record<string, unknown>;
    return Object.keys(usable).filter((group) => !Object.hasOwn(ratios, group));
  } catch {
    // Invalid JSON is reported by the fields themselves.
    return [];
  }
}

function checkGroups(t: Text) {
  return (values: OptionFormValues) => {
    const missing = groupsWithoutRatio(values);
    return missing.length > 0
      ? t('pages.settings.operation.group.missingRatio', '用户可选分组 {groups} 未在分组倍率中设置', { groups: missing.join(', ') })
      : undefined;
  };
}

/** Group ratios and the groups users may pick (JSON objects, so names are unique). */
export function GroupCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.operation.group.title', '分组设置')}
      saveLabel={t('pages.settings.operation.group.save', '保存分组倍率设置')}
      keys={['GroupRatio', 'UserUsableGroups']}
      beforeSave={checkGroups(t)}
    >
      <OptionField
        name="GroupRatio"
        label={t('pages.settings.operation.group.ratio', '分组倍率')}
        extra={t('pages.settings.operation.group.ratio.help', 'JSON 对象：分组名称到价格倍率，例如 "vip": 0.5')}
      />
      <OptionField
        name="UserUsableGroups"
        label={t('pages.settings.operation.group.usable', '用户可选分组')}
        extra={t('pages.settings.operation.group.usable.help', 'JSON 对象：用户创建令牌时可选的分组名称及其说明；每个分组都须在分组倍率中设置')}
      />
    </OptionSection>
  );
}
