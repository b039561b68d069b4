import { useState } from 'react';
import { Button, Input, Modal } from 'antd';
import { EyeOutlined } from '@ant-design/icons';
import { useIntl } from 'react-intl';
import { feedback } from '../../app/feedback';
import { copyText } from '../../lib/clipboard';
import { useRevealChannelKeyMutation } from '../security/api';
import { StepUpDialog } from '../security/StepUpDialog';

/**
 * Root's "view key" on the channel editor: the stored key comes from POST /api/channel/:id/key,
 * which needs a fresh step-up; when the server refuses (403) the verification dialog opens and
 * the key is fetched again once it succeeds.
 */
export function RevealKeyButton({ channelId }: { channelId: number }) {
  const intl = useIntl();
  const t = intl.formatMessage;
  const [reveal, { isLoading }] = useRevealChannelKeyMutation();
  const [stepUp, setStepUp] = useState(false);
  const [key, setKey] = useState<string | null>(null);

  const fetchKey = async () => {
    const answer = await reveal(channelId);
    if ('data' in answer && answer.data) {
      setKey(answer.data.key);
      return;
    }
    const status = 'error' in answer ? (answer.error as { status?: unknown; message?: string }).status : undefined;
    if (status === 403) setStepUp(true);
    else feedback.error(('error' in answer && answer.error.message) || 'error');
  };

  const copy = async () => {
    if (key && (await copyText(key))) feedback.success(t({ id: 'pages.channels.key.copied', defaultMessage: '密钥已复制到剪贴板' }));
  };

  return (
    <>
      <Button icon={<EyeOutlined />} loading={isLoading} onClick={() => void fetchKey()} style={{ marginBottom: 16 }}>
        {t({ id: 'pages.channels.key.reveal', defaultMessage: '查看密钥' })}
      </Button>
      <StepUpDialog
        open={stepUp}
        onClose={() => setStepUp(false)}
        onVerified={() => {
          setStepUp(false);
          void fetchKey();
        }}
      />
      <Modal
        open={key !== null}
        title={t({ id: 'pages.channels.key.title', defaultMessage: '渠道密钥' })}
        okText={t({ id: 'pages.channels.key.copy', defaultMessage: '复制' })}
        onOk={() => void copy()}
        onCancel={() => setKey(null)}
        destroyOnHidden
      >
        <Input.TextArea
          readOnly
          autoSize={{ minRows: 2, maxRows: 10 }}
          value={key ?? ''}
          aria-label={t({ id: 'pages.channels.key.title', defaultMessage: '渠道密钥' })}
        />
      </Modal>
    </>
  );
}
