import { useMemo, useState } from 'react';
import { Alert, App, Card, Collapse, Flex, Input, Radio, Space, Table, Tag, Tooltip, Typography } from 'antd';
import { CheckCircleFilled, CloseCircleFilled, SearchOutlined } from '@ant-design/icons';
import { defineMessages } from 'react-intl';
import { Link } from 'react-router';
import type { PricingRow } from '@aigw/contracts';
import { useAccess, useCurrentUser } from '../../app/hooks';
import { useText } from '../../app/use-text';
import { CopySelectedButton } from '../../components/CopySelectedButton';
import { useTablePaging } from '../../components/use-table-paging';
import { copyText } from '../../lib/clipboard';
import { useGetPricingQuery } from './api';
import { formatDollars, groupRatioColor, modelPrice } from './prices';

const copyMessages = defineMessages({
  label: { id: 'pages.pricing.copy', defaultMessage: '复制选中模型' },
  none: { id: 'pages.pricing.copy.none', defaultMessage: '请至少选择一个模型！' },
  done: { id: 'pages.pricing.copy.done', defaultMessage: '已复制 {count} 个模型名称' },
});

/** /pricing (public): every offered model with its price in the chosen group. */
export function PricingPage() {
  const { message } = App.useApp();
  const { signedIn } = useAccess();
  const user = useCurrentUser();
  const paging = useTablePaging();
  const { data, isLoading } = useGetPricingQuery();
  const [search, setSearch] = useState('');
  const [chosenGroup, setChosenGroup] = useState<string>();
  const [selected, setSelected] = useState<string[]>([]);
  const t = useText();

  const groups = Object.keys(data?.usableGroups ?? {});
  const defaultGroup = user && groups.includes(user.group) ? user.group : groups.includes('default') ? 'default' : groups[0];
  const group = chosenGroup && groups.includes(chosenGroup) ? chosenGroup : defaultGroup;
  const ratio = group ? (data?.groupRatio[group] ?? 1) : 1;

  const rows = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (data?.models ?? []).filter((row) => !needle || row.model_name.toLowerCase().includes(needle));
  }, [data?.models, search]);

  const columns = [
    {
      title: t('pages.pricing.column.available', '可用性'),
      key: 'available',
      width: 80,
      render: (_: unknown, row: PricingRow) =>
        group && row.enable_groups.includes(group) ? (
          <Tooltip title={t('pages.pricing.available', '您的分组可以使用该模型')}>
            <CheckCircleFilled style={{ color: '#52c41a' }} />
          </Tooltip>
        ) : (
          <Tooltip title={t('pages.pricing.unavailable', '您的分组无权使用该模型')}>
            <CloseCircleFilled style={{ color: '#ff4d4f' }} />
          </Tooltip>
        ),
    },
    {
      title: t('pages.pricing.column.model', '模型名称'),
      dataIndex: 'model_name',
      sorter: (a: PricingRow, b: PricingRow) => a.model_name.localeCompare(b.model_name),
      render: (name: string) => (
        <Tag
          color="blue"
          style={{ cursor: 'pointer' }}
          onClick={() => void copyText(name).then((ok) => ok && message.success(t('pages.pricing.copied', '已复制：{name}', { name })))}
        >
          {name}
        </Tag>
      ),
    },
    {
      title: t('pages.pricing.column.type', '计费类型'),
      dataIndex: 'quota_type',
      render: (type: number) =>
        type === 1 ? (
          <Tag color="purple">{t('pages.pricing.type.call', '按次计费')}</Tag>
        ) : (
          <Tag color="cyan">{t('pages.pricing.type.tokens', '按量计费')}</Tag>
        ),
    },
    {
      title: t('pages.pricing.column.ratio', '倍率'),
      key: 'ratio',
      render: (_: unknown, row: PricingRow) =>
        row.quota_type === 1 ? (
          '-'
        ) : (
          <Space orientation="vertical" size={0}>
            <span>{t('pages.pricing.modelRatio', '模型倍率：{value}', { value: row.model_ratio })}</span>
            <span>{t('pages.pricing.completionRatio', '补全倍率：{value}', { value: row.completion_ratio })}</span>
            <span>{t('pages.pricing.groupRatio', '分组倍率：{value}', { value: ratio })}</span>
          </Space>
        ),
    },
    {
      title: t('pages.pricing.column.price', '模型价格'),
      key: 'price',
      render: (_: unknown, row: PricingRow) => {
        const price = modelPrice(row, ratio);
        if (price.kind === 'call') return t('pages.pricing.perCall', '{price} / 次', { price: formatDollars(price.perCall) });
        return (
          <Space orientation="vertical" size={0}>
            <span>{t('pages.pricing.input', '提示 {price} / 1M tokens', { price: formatDollars(price.inputPerMillion) })}</span>
            <span>{t('pages.pricing.output', '补全 {price} / 1M tokens', { price: formatDollars(price.outputPerMillion) })}</span>
          </Space>
        );
      },
    },
  ];

  const faq = [
    {
      key: 'formula',
      q: t('pages.pricing.faq.formula.q', '费用是怎么计算的？'),
      a: t(
        'pages.pricing.faq.formula.a',
        '按量计费：费用 = 分组倍率 × 模型倍率 × (提示 token 数 + 补全 token 数 × 补全倍率) / 500000 美元。按次计费：每次调用收取 模型价格 × 分组倍率。',
      ),
    },
    {
      key: 'price',
      q: t('pages.pricing.faq.price.q', '每百万 token 的价格怎么来的？'),
      a: t('pages.pricing.faq.price.a', '提示价格 = 模型倍率 × 2 × 分组倍率 美元 / 1M tokens；补全价格 = 提示价格 × 补全倍率。'),
    },
    {
      key: 'group',
      q: t('pages.pricing.faq.group.q', '分组有什么作用？'),
      a: t('pages.pricing.faq.group.a', '分组决定可用的模型和价格倍率。令牌可以指定管理员允许的分组。'),
    },
    {
      key: 'missing',
      q: t('pages.pricing.faq.missing.q', '为什么有的模型不在列表里？'),
      a: t('pages.pricing.faq.missing.a', '只列出已有可用渠道且设置了价格的模型；未定价的模型无法调用。'),
    },
    {
      key: 'sync',
      q: t('pages.pricing.faq.sync.q', '模型列表多久同步一次？'),
      a: t('pages.pricing.faq.sync.a', '模型列表的同步频率为 10-20 分钟；本站的渠道与价格改动通常几秒内即生效。'),
    },
  ];

  return (
    <Flex vertical gap={16}>
      {!signedIn && (
        <Alert
          type="info"
          showIcon
          title={t('pages.pricing.guest', '您当前看到的是默认分组的价格，登录后可查看您所在分组的价格。')}
          action={<Link to="/login">{t('pages.pricing.login', '去登录')}</Link>}
        />
      )}
      <Alert
        type="success"
        showIcon
        title={t(
          'pages.pricing.formula',
          '按量计费：提示价格 = 模型倍率 × 2 × 分组倍率（美元 / 1M tokens），补全价格 = 提示价格 × 补全倍率；按次计费：模型价格 × 分组倍率（美元 / 次）。',
        )}
      />
      <Card>
        <Flex vertical gap={16}>
          {groups.length > 0 && (
            <Space wrap>
              <Typography.Text>{t('pages.pricing.group', '分组：')}</Typography.Text>
              <Radio.Group value={group} onChange={(event) => setChosenGroup(event.target.value as string)}>
                {groups.map((name) => (
                  <Radio.Button key={name} value={name}>
                    {name} <Tag color={groupRatioColor(data!.groupRatio[name] ?? 1)}>x{data!.groupRatio[name] ?? 1}</Tag>
                  </Radio.Button>
                ))}
              </Radio.Group>
            </Space>
          )}
          <Flex gap={8} wrap>
            <Input
              allowClear
              prefix={<SearchOutlined />}
              style={{ maxWidth: 320 }}
              placeholder={t('pages.pricing.search', '模糊搜索模型名称')}
              value={search}
              onChange={(event) => setSearch(event.target.value)}
            />
            <CopySelectedButton count={selected.length} keys={async () => selected} separator="," messages={copyMessages} />
          </Flex>
          <Table<PricingRow>
            rowKey="model_name"
            loading={isLoading}
            columns={columns}
            dataSource={rows}
            rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys as string[]) }}
            scroll={{ x: 'max-content' }}
            pagination={paging.pagination(rows.length)}
          />
        </Flex>
      </Card>
      <Card title={t('pages.pricing.faq', '常见问题')}>
        <Collapse
          items={faq.map((item) => ({ key: item.key, label: item.q, children: <Typography.Paragraph style={{ margin: 0 }}>{item.a}</Typography.Paragraph> }))}
        />
      </Card>
    </Flex>
  );
}

export default PricingPage;
