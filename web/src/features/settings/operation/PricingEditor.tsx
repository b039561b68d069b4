import { useEffect, useMemo, useState } from 'react';
import { App, Button, Flex, Input, Table, Typography, type TableColumnsType } from 'antd';
import { DeleteOutlined, PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { localeFromAcceptLanguage } from '@aigw/contracts';
import { useIntl } from 'react-intl';
import { useTablePaging } from '../../../components/use-table-paging';
import { useSaveOptions } from '../OptionSection';
import { checkOptionValue } from '../option-values';
import { useGetOptionsQuery } from '../options-api';
import { AddModelDialog } from './AddModelDialog';
import {
  changedMaps,
  deleteRow,
  filterRows,
  hasFixedPrice,
  invalidFields,
  isNotNumber,
  mapsFromOptions,
  mapsFromRows,
  pricingKeys,
  rowsFromMaps,
  updateRow,
  type PricingField,
  type PricingMaps,
  type PricingRow,
} from './pricing-rows';
import { useText } from '../../../app/use-text';

const emptyMaps: PricingMaps = { ModelPrice: {}, ModelRatio: {}, CompletionRatio: {} };

/**
 * The visual pricing editor: one row per model from ModelPrice, ModelRatio and CompletionRatio.
 * Edits stay local until Save, which writes back only the maps that changed through the same
 * option-save path as the cards.
 */
export function PricingEditor() {
  const t = useText();
  const intl = useIntl();
  const { message } = App.useApp();
  const { data: stored, isLoading } = useGetOptionsQuery();
  const saveOptions = useSaveOptions();

  // Built from the three stored texts only, so saving another card does not reset edits here.
  const loaded = stored !== undefined;
  const [priceText, ratioText, completionText] = pricingKeys.map((key) => stored?.[key]);
  const baseline = useMemo(
    () => (loaded ? mapsFromOptions({ ModelPrice: priceText, ModelRatio: ratioText, CompletionRatio: completionText }) : emptyMaps),
    [loaded, priceText, ratioText, completionText],
  );
  const [rows, setRows] = useState<PricingRow[]>([]);
  useEffect(() => setRows(rowsFromMaps(baseline)), [baseline]);

  const [search, setSearch] = useState('');
  const paging = useTablePaging();
  const { setPage } = paging;
  const [adding, setAdding] = useState(false);
  const [saving, setSaving] = useState(false);
  const visible = useMemo(() => filterRows(rows, search), [rows, search]);

  const fieldTitle: Record<PricingField, string> = {
    price: t('pages.settings.operation.pricing.price', '固定价格'),
    ratio: t('pages.settings.operation.pricing.ratio', '模型倍率'),
    completionRatio: t('pages.settings.operation.pricing.completionRatio', '补全倍率'),
  };
  const notNumber = t('pages.settings.operation.pricing.notNumber', '请输入数字');

  const cell = (field: PricingField) => (_: unknown, row: PricingRow) => {
    const invalid = isNotNumber(row[field]);
    return (
      <>
        <Input
          aria-label={t('pages.settings.operation.pricing.cellLabel', '{model} 的{field}', { model: row.name, field: fieldTitle[field] })}
          inputMode="decimal"
          value={row[field]}
          disabled={field !== 'price' && hasFixedPrice(row)}
          status={invalid ? 'error' : undefined}
          onChange={(event) => setRows((current) => updateRow(current, row.name, field, event.target.value))}
        />
        {invalid && <Typography.Text type="danger">{notNumber}</Typography.Text>}
      </>
    );
  };

  const columns: TableColumnsType<PricingRow> = [
    { title: t('pages.settings.operation.pricing.name', '模型名称'), dataIndex: 'name', ellipsis: true },
    { title: fieldTitle.price, key: 'price', width: 160, render: cell('price') },
    { title: fieldTitle.ratio, key: 'ratio', width: 160, render: cell('ratio') },
    { title: fieldTitle.completionRatio, key: 'completionRatio', width: 160, render: cell('completionRatio') },
    {
      title: t('common.operation', '操作'),
      key: 'actions',
      width: 90,
      render: (_: unknown, row: PricingRow) => (
        <Button
          danger
          size="small"
          icon={<DeleteOutlined />}
          aria-label={t('pages.settings.operation.pricing.deleteLabel', '删除 {model}', { model: row.name })}
          onClick={() => setRows((current) => deleteRow(current, row.name))}
        >
          {t('common.delete', '删除')}
        </Button>
      ),
    },
  ];

  const save = async () => {
    if (rows.some((row) => invalidFields(row).length > 0)) {
      void message.error(notNumber);
      return;
    }
    const maps = mapsFromRows(rows);
    // The contracts' own bounds (non-negative, at most a million), as the server checks them.
    const problem = pricingKeys.map((key) => checkOptionValue(key, JSON.stringify(maps[key]), localeFromAcceptLanguage(intl.locale))).find(Boolean);
    if (problem) {
      void message.error(problem);
      return;
    }
    setSaving(true);
    await saveOptions(changedMaps(maps, baseline));
    setSaving(false);
  };

  return (
    <>
      <Typography.Paragraph type="secondary">
        {t('pages.settings.operation.pricing.help', '设置了固定价格（美元/次）的模型按次计费，其模型倍率和补全倍率不可用；修改后点击保存设置才会生效。')}
      </Typography.Paragraph>
      <Flex gap={8} wrap style={{ marginBottom: 16 }}>
        <Input
          allowClear
          prefix={<SearchOutlined />}
          style={{ maxWidth: 320 }}
          placeholder={t('pages.settings.operation.pricing.search', '搜索模型名称')}
          aria-label={t('pages.settings.operation.pricing.search', '搜索模型名称')}
          value={search}
          onChange={(event) => {
            setSearch(event.target.value);
            setPage(1);
          }}
        />
        <Button icon={<PlusOutlined />} onClick={() => setAdding(true)}>
          {t('pages.settings.operation.pricing.add', '添加模型')}
        </Button>
        <Button type="primary" loading={saving} onClick={() => void save()}>
          {t('pages.settings.save', '保存设置')}
        </Button>
      </Flex>
      <Table<PricingRow>
        rowKey="name"
        size="small"
        loading={isLoading}
        columns={columns}
        dataSource={visible}
        scroll={{ x: 720 }}
        pagination={paging.pagination(visible.length)}
      />
      <AddModelDialog
        open={adding}
        rows={rows}
        onCancel={() => setAdding(false)}
        onAdd={(next) => {
          setRows(next);
          setAdding(false);
          setSearch('');
          setPage(1);
        }}
      />
    </>
  );
}
