import { Input } from 'antd';
import { OptionField, OptionSection } from '../OptionSection';
import { FieldGrid } from '../FieldGrid';
import { useText } from '../../../app/use-text';

/** General: the public address used in emails, OAuth callbacks and payment notifications. */
export function GeneralCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.general.title', '通用设置')}
      saveLabel={t('pages.settings.system.general.save', '更新服务器地址')}
      keys={['ServerAddress']}
    >
      <OptionField
        name="ServerAddress"
        label={t('pages.settings.system.general.serverAddress', '服务器地址')}
        extra={t('pages.settings.system.general.serverAddress.help', '用于邮件中的链接以及第三方登录、支付的回调地址')}
        input={<Input placeholder={t('pages.settings.system.general.serverAddress.placeholder', '例如：https://yourdomain.com')} />}
      />
    </OptionSection>
  );
}

/** Worker proxy: fetches image URLs on the server's behalf. */
export function WorkerCard() {
  const t = useText();
  return (
    <OptionSection
      title={t('pages.settings.system.worker.title', '代理设置')}
      saveLabel={t('pages.settings.system.worker.save', '更新 Worker 设置')}
      keys={['WorkerUrl', 'WorkerValidKey']}
    >
      <FieldGrid columns={2}>
        <OptionField
          name="WorkerUrl"
          label={t('pages.settings.system.worker.url', 'Worker 地址')}
          extra={t('pages.settings.system.worker.url.help', '用于代理获取图片等外部资源，不填写则直接请求')}
          input={<Input placeholder={t('pages.settings.system.worker.url.placeholder', '例如：https://workername.yourdomain.workers.dev')} />}
        />
        <OptionField name="WorkerValidKey" label={t('pages.settings.system.worker.key', 'Worker 密钥')} />
      </FieldGrid>
    </OptionSection>
  );
}
