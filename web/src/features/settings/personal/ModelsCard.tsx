import { useState } from 'react';
import { Alert, App, Card, Empty, Flex, Spin, Tag, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { copyText } from '../../../lib/clipboard';
import { usePersonalModelsQuery } from './api';

/** docs/product.md section 4: the list collapses above 10 models. */
export const MODELS_SHOWN_COLLAPSED = 10;

/** The models the user's group may call; a click copies a model's name. */
export function ModelsCard() {
  const intl = useIntl();
  const { message } = App.useApp();
  const { data: models = [], isLoading, error } = usePersonalModelsQuery();
  const [expanded, setExpanded] = useState(false);
  const shown = expanded ? models : models.slice(0, MODELS_SHOWN_COLLAPSED);
  const hidden = models.length - MODELS_SHOWN_COLLAPSED;

  const copyModel = async (name: string) => {
    if (await copyText(name)) void message.success(intl.formatMessage({ id: 'common.copied', defaultMessage: '已复制：{text}' }, { text: name }));
  };

  let body;
  if (isLoading) body = <Spin />;
  else if (error) {
    body = (
      <Alert
        type="error"
        showIcon
        title={intl.formatMessage({ id: 'pages.settings.personal.models.failed', defaultMessage: '获取模型列表失败' })}
        description={'message' in error ? error.message : undefined}
      />
    );
  } else if (!models.length) {
    body = (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={intl.formatMessage({ id: 'pages.settings.personal.models.empty', defaultMessage: '暂无可用模型' })}
      />
    );
  } else {
    body = (
      <Flex wrap gap={8} align="center">
        {shown.map((name) => (
          <Tag
            key={name}
            role="button"
            tabIndex={0}
            style={{ cursor: 'pointer', marginInlineEnd: 0 }}
            onClick={() => void copyModel(name)}
            onKeyDown={(event) => event.key === 'Enter' && void copyModel(name)}
          >
            {name}
          </Tag>
        ))}
        {hidden > 0 && (
          <Typography.Link onClick={() => setExpanded((open) => !open)}>
            {expanded
              ? intl.formatMessage({ id: 'pages.settings.personal.models.collapse', defaultMessage: '收起' })
              : intl.formatMessage({ id: 'pages.settings.personal.models.more', defaultMessage: '更多 {count} 个模型' }, { count: hidden })}
          </Typography.Link>
        )}
      </Flex>
    );
  }

  return (
    <Card
      title={intl.formatMessage({ id: 'pages.settings.personal.models.title', defaultMessage: '可用模型' })}
      extra={
        <Typography.Text type="secondary">
          {intl.formatMessage({ id: 'pages.settings.personal.models.hint', defaultMessage: '点击模型名称可复制' })}
        </Typography.Text>
      }
    >
      {body}
    </Card>
  );
}
