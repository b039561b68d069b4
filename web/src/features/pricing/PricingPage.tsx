import { useMemo, useState } from 'react';
import { Alert, App, Card, Collapse, Flex, Input, Radio, Space, Table, Tag, Tooltip, Typography } from 'antd';
import { CheckCircleFilled, CloseCircleFilled, QuestionCircleOutlined, SearchOutlined } from '@ant-design/icons';
import { defineMessages } from 'react-intl';
import { Link } from 'react-router';
import type { PricingRow } from '@aigw/contracts';
import { useAccess, useCurrentUser } from '../../app/hooks';
import { useText } from '../../app/use-text';
import { CopySelectedButton } from '../../components/CopySelectedButton';
import { useTablePaging } from '../../components/use-table-paging';
import { copyText } from '../../lib/clipboard';
import { useGetPricingQuery } from './api';
import { formatDollars, groupRatioColor, modelPrice, USD_PER_IMAGE_RATIO, type ModelPrice } from './prices';

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

  /** What a model is charged by, as a tag: per call, per token, per image, per character, per audio minute. */
  const billingTag = (price: ModelPrice) => {
    switch (price.kind) {
      case 'call':
        return <Tag color="purple">{t('pages.pricing.type.call', '按次计费')}</Tag>;
      case 'image':
        return <Tag color="magenta">{t('pages.pricing.type.image', '按张计费')}</Tag>;
      case 'characters':
        return <Tag color="geekblue">{t('pages.pricing.type.characters', '按字符计费')}</Tag>;
      case 'audioMinute':
        return <Tag color="gold">{t('pages.pricing.type.audioMinute', '按时长计费')}</Tag>;
      default:
        return <Tag color="cyan">{t('pages.pricing.type.tokens', '按量计费')}</Tag>;
    }
  };

  /** A price with a short note in a tooltip beside it. */
  const withNote = (text: string, note: string) => (
    <Space size={4}>
      <span>{text}</span>
      <Tooltip title={note}>
        <Typography.Text type="secondary">
          <QuestionCircleOutlined aria-label={note} />
        </Typography.Text>
      </Tooltip>
    </Space>
  );

  const priceCell = (price: ModelPrice) => {
    switch (price.kind) {
      case 'call':
        return t('pages.pricing.perCall', '{price} / 次', { price: formatDollars(price.perCall) });
      case 'image': {
        const perImage = withNote(
          t('pages.pricing.perImage', '{price} / 张', { price: formatDollars(price.perImage) }),
          t(
            'pages.pricing.imageNote',
            '按尺寸和质量相乘：256×256 ×0.4，512×512 ×0.45，1024×1792 或 1792×1024 ×2；dall-e-3 的 hd ×2（大尺寸 ×1.5）；再乘以张数 n',
          ),
        );
        if (price.modelRatio === null) return perImage;
        return (
          <Space orientation="vertical" size={0}>
            {perImage}
            <Typography.Text type="secondary">
              {t('pages.pricing.imageRatio', '{base} × 模型倍率 {modelRatio} × 分组倍率 {groupRatio}', {
                base: formatDollars(USD_PER_IMAGE_RATIO),
                modelRatio: price.modelRatio,
                groupRatio: ratio,
              })}
            </Typography.Text>
          </Space>
        );
      }
      case 'characters':
        return withNote(
          t('pages.pricing.perMillionCharacters', '{price} / 1M 字符', { price: formatDollars(price.perMillionCharacters) }),
          t('pages.pricing.charactersNote', '语音合成按输入文本的字符数计费：每个字符计 1 个提示 token'),
        );
      case 'audioMinute':
        return withNote(
          t('pages.pricing.perMinute', '{price} / 分钟', { price: formatDollars(price.perMinute) }),
          t(
            'pages.pricing.audioMinuteNote',
            '按音频时长计费：1 分钟 = 1,000 tokens；上游报告 token 用量时按量计费：提示 {input} / 1M tokens，补全 {output} / 1M tokens',
            {
              input: formatDollars(price.inputPerMillion),
              output: formatDollars(price.outputPerMillion),
            },
          ),
        );
      default:
        return (
          <Space orientation="vertical" size={0}>
            <span>{t('pages.pricing.input', '提示 {price} / 1M tokens', { price: formatDollars(price.inputPerMillion) })}</span>
            <span>{t('pages.pricing.output', '补全 {price} / 1M tokens', { price: formatDollars(price.outputPerMillion) })}</span>
          </Space>
        );
    }
  };

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
      key: 'type',
      render: (_: unknown, row: PricingRow) => billingTag(modelPrice(row, ratio)),
    },
    {
      title: t('pages.pricing.column.ratio', '倍率'),
      key: 'ratio',
      render: (_: unknown, row: PricingRow) => {
        if (row.quota_type === 1) return '-';
        const price = modelPrice(row, ratio);
        return (
          <Space orientation="vertical" size={0}>
            <span>{t('pages.pricing.modelRatio', '模型倍率：{value}', { value: row.model_ratio })}</span>
            {price.kind !== 'image' && <span>{t('pages.pricing.completionRatio', '补全倍率：{value}', { value: row.completion_ratio })}</span>}
            <span>{t('pages.pricing.groupRatio', '分组倍率：{value}', { value: ratio })}</span>
          </Space>
        );
      },
    },
    {
      title: t('pages.pricing.column.price', '模型价格'),
      key: 'price',
      render: (_: unknown, row: PricingRow) => priceCell(modelPrice(row, ratio)),
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
      key: 'units',
      q: t('pages.pricing.faq.units.q', '图片、语音合成和语音转写怎么计费？'),
      a: t(
        'pages.pricing.faq.units.a',
        '图片按张计费：模型价格（只有模型倍率时为 0.0025 × 模型倍率）× 尺寸倍率 × 质量倍率 × 张数 × 分组倍率；按量计费的 gpt-image 模型按上游报告的 token 计费。语音合成的提示 token 数等于输入文本的字符数。语音转写按时长计费时每分钟音频计 1,000 tokens。',
      ),
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
