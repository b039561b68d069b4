import { useEffect, useRef, useState } from 'react';
import { App, Button, Card, Col, Empty, Flex, Form, Input, InputNumber, Row, Select, Slider, Space, Typography } from 'antd';
import { ClearOutlined, SendOutlined, StopOutlined } from '@ant-design/icons';
import { defineMessages, useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { signedOut } from '../../app/session';
import { useAppDispatch } from '../../app/store';
import { LabelTag, type Label } from '../../components/LabelTag';
import { useNoTokenRedirect } from '../../components/no-token-redirect';
import { useSelfGroupsQuery, useSelfModelsQuery } from '../self/api';
import { useEnabledTokenQuery } from '../tokens/api';
import { streamChat, type ChatMessage, type ReplyState } from './stream-chat';

/** docs/product.md section 10: temperature 0.1-1 step 0.1; max tokens an integer, default 0; default model. */
const DEFAULT_MODEL = 'gpt-4o-mini';

interface Turn extends ChatMessage {
  /** Replies only. */
  state?: ReplyState;
}

interface Settings {
  group: string;
  model: string;
  temperature: number;
  maxTokens: number;
  system: string;
}

const replyStates = defineMessages({
  loading: { id: 'pages.playground.state.loading', defaultMessage: '请求中' },
  incomplete: { id: 'pages.playground.state.incomplete', defaultMessage: '生成中' },
  complete: { id: 'pages.playground.state.complete', defaultMessage: '已完成' },
  error: { id: 'pages.playground.state.error', defaultMessage: '出错' },
});

/** A reply's state as a tag: asked, streaming, done, failed. */
const replyStateLabels: Record<ReplyState, Label> = {
  loading: { label: replyStates.loading, color: 'processing' },
  incomplete: { label: replyStates.incomplete, color: 'blue' },
  complete: { label: replyStates.complete, color: 'success' },
  error: { label: replyStates.error, color: 'error' },
};

/** /playground: try a model with streamed replies, billed to the user's own balance. */
export function PlaygroundPage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  const user = useCurrentUser();
  const { message } = App.useApp();
  const { data: enabledToken } = useEnabledTokenQuery();
  const { data: groups } = useSelfGroupsQuery();
  const { data: models } = useSelfModelsQuery();
  const [settings, setSettings] = useState<Settings>({ group: '', model: DEFAULT_MODEL, temperature: 0.7, maxTokens: 0, system: '' });
  const [turns, setTurns] = useState<Turn[]>([]);
  const [input, setInput] = useState('');
  const abort = useRef<AbortController | null>(null);
  const bottom = useRef<HTMLDivElement>(null);
  const streaming = turns.some((turn) => turn.state === 'loading' || turn.state === 'incomplete');

  // Entry rule: without an enabled token the user is sent to create one.
  useNoTokenRedirect(enabledToken === null);

  useEffect(() => {
    if (user && !settings.group) setSettings((current) => ({ ...current, group: user.group }));
  }, [settings.group, user]);

  useEffect(() => () => abort.current?.abort(), []);
  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [turns]);

  const updateReply = (change: (reply: Turn) => Turn) => setTurns((current) => [...current.slice(0, -1), change(current[current.length - 1]!)]);

  const send = async () => {
    const text = input.trim();
    if (!text || streaming || !user) return;
    const history = [
      ...turns.filter((turn) => turn.state !== 'error').map(({ role, content }) => ({ role, content })),
      { role: 'user' as const, content: text },
    ];
    const messages: ChatMessage[] = settings.system.trim() ? [{ role: 'system', content: settings.system.trim() }, ...history] : history;
    setTurns((current) => [...current, { role: 'user', content: text }, { role: 'assistant', content: '', state: 'loading' }]);
    setInput('');
    const controller = new AbortController();
    abort.current = controller;
    await streamChat(
      { messages, model: settings.model, group: settings.group || user.group, temperature: settings.temperature, maxTokens: settings.maxTokens },
      user.id,
      {
        onDelta: (delta) => updateReply((reply) => ({ ...reply, content: reply.content + delta, state: 'incomplete' })),
        onDone: () => updateReply((reply) => ({ ...reply, state: 'complete' })),
        onError: (detail, status) => {
          if (status === 401) {
            dispatch(signedOut());
            void message.error(intl.formatMessage({ id: 'pages.playground.expired', defaultMessage: '未登录或登录已过期，请重新登录！' }));
            void navigate('/login?expired=true');
            return;
          }
          const content = detail === 'parse' ? intl.formatMessage({ id: 'pages.playground.parseFailed', defaultMessage: '聊天数据解析失败' }) : detail;
          updateReply((reply) => ({ ...reply, content: reply.content ? `${reply.content}\n\n${content}` : content, state: 'error' }));
        },
      },
      controller.signal,
    );
  };

  const stop = () => {
    abort.current?.abort();
    updateReply((reply) => ({
      ...reply,
      state: reply.content ? 'complete' : 'error',
      content: reply.content || intl.formatMessage({ id: 'pages.playground.stopped', defaultMessage: '已停止' }),
    }));
  };

  const modelOptions = [...new Set([DEFAULT_MODEL, ...(models ?? [])])].map((model) => ({ value: model, label: model }));
  const groupOptions = Object.entries(groups ?? {}).map(([group, info]) => ({ value: group, label: `${group} (${info.desc}, x${info.ratio})` }));

  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} md={8} lg={6}>
        <Card title={intl.formatMessage({ id: 'pages.playground.settings', defaultMessage: '模型设置' })}>
          <Form layout="vertical">
            <Form.Item label={intl.formatMessage({ id: 'pages.playground.group', defaultMessage: '分组' })}>
              <Select value={settings.group || undefined} options={groupOptions} onChange={(group) => setSettings({ ...settings, group })} />
            </Form.Item>
            <Form.Item label={intl.formatMessage({ id: 'pages.playground.model', defaultMessage: '模型' })}>
              <Select showSearch value={settings.model} options={modelOptions} onChange={(model) => setSettings({ ...settings, model })} />
            </Form.Item>
            <Form.Item label={intl.formatMessage({ id: 'pages.playground.temperature', defaultMessage: '温度' })}>
              <Slider min={0.1} max={1} step={0.1} value={settings.temperature} onChange={(temperature) => setSettings({ ...settings, temperature })} />
            </Form.Item>
            <Form.Item label={intl.formatMessage({ id: 'pages.playground.maxTokens', defaultMessage: '最大 Token 数（0 为不限制）' })}>
              <InputNumber
                style={{ width: '100%' }}
                min={0}
                precision={0}
                value={settings.maxTokens}
                onChange={(value) => setSettings({ ...settings, maxTokens: Math.max(0, Math.trunc(Number(value ?? 0))) })}
              />
            </Form.Item>
            <Form.Item label={intl.formatMessage({ id: 'pages.playground.system', defaultMessage: '系统提示词' })}>
              <Input.TextArea
                autoSize={{ minRows: 3, maxRows: 10 }}
                value={settings.system}
                placeholder={intl.formatMessage({ id: 'pages.playground.system.placeholder', defaultMessage: '例如：你是一个乐于助人的助手。' })}
                onChange={(event) => setSettings({ ...settings, system: event.target.value })}
              />
            </Form.Item>
          </Form>
        </Card>
      </Col>
      <Col xs={24} md={16} lg={18}>
        <Card
          title={intl.formatMessage({ id: 'pages.playground.chat', defaultMessage: '对话' })}
          extra={
            <Button icon={<ClearOutlined />} disabled={streaming || turns.length === 0} onClick={() => setTurns([])}>
              {intl.formatMessage({ id: 'pages.playground.clear', defaultMessage: '清空对话' })}
            </Button>
          }
        >
          <div style={{ minHeight: 320, maxHeight: 'calc(100vh - 360px)', overflow: 'auto', marginBottom: 16 }} aria-live="polite">
            {turns.length === 0 ? (
              <Empty description={intl.formatMessage({ id: 'pages.playground.empty', defaultMessage: '发送一条消息开始对话' })} />
            ) : (
              turns.map((turn, index) => (
                <Flex key={index} justify={turn.role === 'user' ? 'flex-end' : 'flex-start'} style={{ marginBottom: 12 }}>
                  <Card size="small" style={{ maxWidth: '85%' }} data-role={turn.role} data-state={turn.state}>
                    <Space orientation="vertical" size={4}>
                      <Space size={4}>
                        <Typography.Text type="secondary">
                          {turn.role === 'user'
                            ? intl.formatMessage({ id: 'pages.playground.you', defaultMessage: '我' })
                            : intl.formatMessage({ id: 'pages.playground.assistant', defaultMessage: '助手' })}
                        </Typography.Text>
                        {turn.state && <LabelTag label={replyStateLabels[turn.state]} />}
                      </Space>
                      <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', margin: 0 }} type={turn.state === 'error' ? 'danger' : undefined}>
                        {turn.content || (turn.state === 'loading' ? '…' : '')}
                      </Typography.Paragraph>
                    </Space>
                  </Card>
                </Flex>
              ))
            )}
            <div ref={bottom} />
          </div>
          <Flex gap={8}>
            <Input.TextArea
              autoSize={{ minRows: 1, maxRows: 6 }}
              value={input}
              placeholder={intl.formatMessage({ id: 'pages.playground.input', defaultMessage: '输入消息，Enter 发送，Shift+Enter 换行' })}
              onChange={(event) => setInput(event.target.value)}
              onPressEnter={(event) => {
                if (!event.shiftKey) {
                  event.preventDefault();
                  void send();
                }
              }}
            />
            {streaming ? (
              <Button danger icon={<StopOutlined />} onClick={stop}>
                {intl.formatMessage({ id: 'pages.playground.stop', defaultMessage: '停止' })}
              </Button>
            ) : (
              <Button type="primary" icon={<SendOutlined />} disabled={!input.trim()} onClick={() => void send()}>
                {intl.formatMessage({ id: 'pages.playground.send', defaultMessage: '发送' })}
              </Button>
            )}
          </Flex>
        </Card>
      </Col>
    </Row>
  );
}

export default PlaygroundPage;
