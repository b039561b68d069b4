import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEventBase, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { Role } from '@aigw/contracts';
import { PricingEditor } from '../src/features/settings/operation/PricingEditor';
import { RatioCard } from '../src/features/settings/operation/RatioCard';
import { makeUser, renderPage, setupFakeApi } from './render';

const root = makeUser({ id: 1, username: 'root', role: Role.Root });
const fake = setupFakeApi();
// user-event checks pointer-events with getComputedStyle up every ancestor: slow in jsdom with
// antd's style rules, and nothing here is covered.
const userEvent = userEventBase.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never });

const storedMaps = {
  ModelPrice: { 'dall-e-3': 0.04 },
  ModelRatio: { 'gpt-4o': 1.25, 'gpt-4o-mini': 0.075 },
  CompletionRatio: { 'gpt-4o': 4 },
  CacheRatio: { 'gpt-4o': 0.5 },
};

function serveOptions(maps: Record<string, Record<string, number>> = storedMaps) {
  fake.ok(
    'GET',
    '/api/option/',
    Object.entries(maps).map(([key, value]) => ({ key, value: JSON.stringify(value) })),
  );
}

beforeEach(() => {
  serveOptions();
  fake.ok('PUT', '/api/option/');
});

const puts = () => fake.callsTo('PUT', '/api/option/').map((call) => call.body);
const cell = (model: string, field: '固定价格' | '模型倍率' | '补全倍率') => screen.getByLabelText(`${model} 的${field}`);
// Queries by label and text: getByRole computes styles for the whole antd tree, seconds per query in jsdom.
const button = (text: string, container: HTMLElement = document.body) => within(container).getByText(text, { selector: 'button > span' }).closest('button')!;
const save = () => userEvent.click(button('保存设置'));
/** One change event per value (typing key by key re-renders the table per key: slow in jsdom). */
const enter = (input: HTMLElement, value: string) => fireEvent.change(input, { target: { value } });
const modelNames = () => [...document.querySelectorAll('.ant-table-tbody tr.ant-table-row')].map((row) => row.querySelector('td')!.textContent);

/** The editor alone (the card's other tab only adds DOM to search). */
async function openEditor() {
  renderPage(<PricingEditor />, { user: root });
  await screen.findByLabelText('gpt-4o 的模型倍率');
}

async function openAddDialog() {
  // The toolbar's button (the dialog's own OK button says the same).
  await userEvent.click(screen.getByLabelText('plus').closest('button')!);
  const title = await screen.findByText('添加模型', { selector: '.ant-modal-title' });
  return title.closest<HTMLElement>('.ant-modal')!;
}

describe('visual pricing editor', () => {
  it('shows one row per model from the three maps, and searches by name', async () => {
    renderPage(<RatioCard />, { user: root });
    await userEvent.click(await screen.findByText('可视化倍率设置'));
    await screen.findByLabelText('gpt-4o 的模型倍率');
    expect(modelNames()).toEqual(['dall-e-3', 'gpt-4o', 'gpt-4o-mini']);
    expect(cell('dall-e-3', '固定价格')).toHaveValue('0.04');
    expect(cell('gpt-4o', '模型倍率')).toHaveValue('1.25');
    expect(cell('gpt-4o', '补全倍率')).toHaveValue('4');
    // A row with a fixed price has its ratios disabled.
    expect(cell('dall-e-3', '模型倍率')).toBeDisabled();
    expect(cell('gpt-4o', '模型倍率')).toBeEnabled();
    enter(screen.getByLabelText('搜索模型名称'), 'MINI');
    expect(modelNames()).toEqual(['gpt-4o-mini']);
  });

  it('says nothing changed when saving untouched rows', async () => {
    await openEditor();
    await save();
    expect(await screen.findByText('你似乎并没有修改什么')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('flags a non-number and refuses to save it', async () => {
    await openEditor();
    enter(cell('gpt-4o', '模型倍率'), '1.25x');
    expect(cell('gpt-4o', '模型倍率')).toHaveValue('1.25x');
    expect(screen.getByText('请输入数字')).toBeInTheDocument();
    await save();
    await waitFor(() => expect(screen.getAllByText('请输入数字')).toHaveLength(2));
    expect(puts()).toEqual([]);
  });

  it('a fixed price clears and disables the ratios, and saves the changed maps only', async () => {
    await openEditor();
    enter(cell('gpt-4o', '固定价格'), '0.02');
    expect(cell('gpt-4o', '模型倍率')).toBeDisabled();
    expect(cell('gpt-4o', '模型倍率')).toHaveValue('');
    expect(cell('gpt-4o', '补全倍率')).toBeDisabled();
    expect(cell('gpt-4o', '补全倍率')).toHaveValue('');
    await save();
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(puts()).toEqual([
      { key: 'ModelPrice', value: JSON.stringify({ 'dall-e-3': 0.04, 'gpt-4o': 0.02 }) },
      { key: 'ModelRatio', value: JSON.stringify({ 'gpt-4o-mini': 0.075 }) },
      { key: 'CompletionRatio', value: JSON.stringify({}) },
    ]);
    // After the save the stored options are loaded again.
    await waitFor(() => expect(fake.callsTo('GET', '/api/option/')).toHaveLength(2));
  });

  it('adds a model: name required and unique, values numbers', async () => {
    await openEditor();
    let dialog = await openAddDialog();
    const add = () => userEvent.click(button('添加模型', dialog));
    await add();
    expect(await within(dialog).findByText('请输入模型名称')).toBeInTheDocument();
    enter(within(dialog).getByLabelText('模型名称'), 'gpt-4o');
    expect(await within(dialog).findByText('模型名称已存在')).toBeInTheDocument();
    enter(within(dialog).getByLabelText('模型名称'), 'gpt-4.1');
    enter(within(dialog).getByLabelText('模型倍率'), 'one');
    expect(await within(dialog).findByText('请输入数字')).toBeInTheDocument();
    await add();
    expect(modelNames()).not.toContain('gpt-4.1');
    enter(within(dialog).getByLabelText('模型倍率'), '1');
    enter(within(dialog).getByLabelText('补全倍率'), '4');
    await add();
    await waitFor(() => expect(modelNames()).toEqual(['gpt-4.1', 'dall-e-3', 'gpt-4o', 'gpt-4o-mini']));
    expect(cell('gpt-4.1', '模型倍率')).toHaveValue('1');

    // A fixed price in the dialog leaves the new model without ratios.
    await waitFor(() => expect(dialog).not.toBeVisible());
    dialog = await openAddDialog();
    // The dialog opens empty again.
    expect(within(dialog).getByLabelText('模型名称')).toHaveValue('');
    enter(within(dialog).getByLabelText('模型名称'), 'suno_music');
    enter(within(dialog).getByLabelText('固定价格'), '0.1');
    await waitFor(() => expect(within(dialog).getByLabelText('模型倍率')).toBeDisabled());
    await add();
    await waitFor(() => expect(modelNames()[0]).toBe('suno_music'));

    await save();
    await screen.findByText('保存成功');
    expect(puts()).toEqual([
      { key: 'ModelPrice', value: JSON.stringify({ suno_music: 0.1, 'dall-e-3': 0.04 }) },
      { key: 'ModelRatio', value: JSON.stringify({ 'gpt-4.1': 1, 'gpt-4o': 1.25, 'gpt-4o-mini': 0.075 }) },
      { key: 'CompletionRatio', value: JSON.stringify({ 'gpt-4.1': 4, 'gpt-4o': 4 }) },
    ]);
  });

  it('deletes a row and saves the maps it was in', async () => {
    await openEditor();
    await userEvent.click(screen.getByLabelText('删除 gpt-4o'));
    expect(modelNames()).toEqual(['dall-e-3', 'gpt-4o-mini']);
    await save();
    await screen.findByText('保存成功');
    expect(puts()).toEqual([
      { key: 'ModelRatio', value: JSON.stringify({ 'gpt-4o-mini': 0.075 }) },
      { key: 'CompletionRatio', value: JSON.stringify({}) },
    ]);
  });

  it('refuses values out of the contracts bounds with their message', async () => {
    await openEditor();
    enter(cell('gpt-4o', '模型倍率'), '-1');
    await save();
    expect(await screen.findByText(/^ModelRatio\.gpt-4o: /)).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('shows the server reason when a save fails', async () => {
    fake.fail('PUT', '/api/option/', 'ModelRatio: rejected');
    await openEditor();
    enter(cell('gpt-4o', '模型倍率'), '2');
    await save();
    expect(await screen.findByText('保存失败，请重试: ModelRatio: rejected')).toBeInTheDocument();
  });

  it('pages a long list', async () => {
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, index) => [`model-${String(index + 1).padStart(2, '0')}`, 1]));
    serveOptions({ ModelPrice: {}, ModelRatio: many, CompletionRatio: {} });
    renderPage(<PricingEditor />, { user: root });
    await screen.findByLabelText('model-01 的模型倍率');
    expect(modelNames()).toHaveLength(10);
    expect(screen.getByText('共 25 条')).toBeInTheDocument();
    await userEvent.click(screen.getByTitle('3'));
    expect(modelNames()).toEqual(['model-21', 'model-22', 'model-23', 'model-24', 'model-25']);
  });
});
