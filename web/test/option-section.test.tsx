import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Role } from '@aigw/contracts';
import { OptionField, OptionSection } from '../src/features/settings/OptionSection';
import { makeUser, renderPage, setupFakeApi } from './render';

const root = makeUser({ id: 1, username: 'root', role: Role.Root });
const fake = setupFakeApi();

beforeEach(() => {
  fake.ok('GET', '/api/option/', [
    { key: 'ServerAddress', value: 'https://old.example.com' },
    { key: 'GroupRatio', value: '{"default":1}' },
    { key: 'RetryTimes', value: '0' },
  ]);
  fake.ok('PUT', '/api/option/');
});

function Section() {
  return (
    <OptionSection title="test card" keys={['ServerAddress', 'GroupRatio', 'RetryTimes', 'SMTPToken']}>
      <OptionField name="ServerAddress" label="server" />
      <OptionField name="GroupRatio" label="ratios" />
      <OptionField name="RetryTimes" label="retries" />
      <OptionField name="SMTPToken" label="smtp token" />
    </OptionSection>
  );
}

const save = () => userEvent.click(screen.getByRole('button', { name: '保存设置' }));

describe('settings card', () => {
  it('says so when nothing changed, and sends nothing', async () => {
    renderPage(<Section />, { user: root });
    expect(await screen.findByDisplayValue('https://old.example.com')).toBeInTheDocument();
    await save();
    expect(await screen.findByText('你似乎并没有修改什么')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/option/')).toHaveLength(0);
  });

  it('saves only the changed keys, without trailing slashes, and never an empty secret', async () => {
    renderPage(<Section />, { user: root });
    const address = await screen.findByDisplayValue('https://old.example.com');
    await userEvent.clear(address);
    await userEvent.type(address, 'https://new.example.com//');
    await save();
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/option/').map((call) => call.body)).toEqual([{ key: 'ServerAddress', value: 'https://new.example.com' }]);
  });

  it('sends a secret when one is typed', async () => {
    renderPage(<Section />, { user: root });
    await userEvent.type(await screen.findByLabelText('smtp token'), 's3cret');
    await save();
    await screen.findByText('保存成功');
    expect(fake.callsTo('PUT', '/api/option/').map((call) => call.body)).toEqual([{ key: 'SMTPToken', value: 's3cret' }]);
  });

  it('checks JSON on blur and refuses to save it', async () => {
    renderPage(<Section />, { user: root });
    const ratios = await screen.findByLabelText('ratios');
    fireEvent.change(ratios, { target: { value: '{"default": 1,' } });
    fireEvent.blur(ratios);
    expect(await screen.findByText('不是合法的 JSON 字符串')).toBeInTheDocument();
    await save();
    expect(await screen.findByText('请检查输入')).toBeInTheDocument();
    expect(fake.callsTo('PUT', '/api/option/')).toHaveLength(0);
  });

  it('reports a partial failure', async () => {
    fake.on('PUT', '/api/option/', (call) =>
      call.body.key === 'RetryTimes' ? { body: { success: false, message: 'RetryTimes: too big' } } : { body: { success: true, message: '' } },
    );
    renderPage(<Section />, { user: root });
    const address = await screen.findByDisplayValue('https://old.example.com');
    await userEvent.type(address, '/x');
    const retries = screen.getByLabelText('retries');
    await userEvent.clear(retries);
    await userEvent.type(retries, '3');
    await save();
    expect(await screen.findByText('部分保存失败，请重试: RetryTimes: too big')).toBeInTheDocument();
  });

  it('reports a total failure', async () => {
    fake.fail('PUT', '/api/option/', 'ServerAddress: invalid');
    renderPage(<Section />, { user: root });
    const address = await screen.findByDisplayValue('https://old.example.com');
    await userEvent.type(address, '/x');
    await save();
    await waitFor(() => expect(screen.getByText('保存失败，请重试: ServerAddress: invalid')).toBeInTheDocument());
  });

  it('keeps what is typed in one card while another card saves (every option is fetched again)', async () => {
    let stored = [
      { key: 'ServerAddress', value: 'https://old.example.com' },
      { key: 'RetryTimes', value: '0' },
    ];
    fake.on('GET', '/api/option/', () => ({ body: { success: true, message: '', data: stored } }));
    fake.on('PUT', '/api/option/', (call) => {
      stored = stored.map((row) => (row.key === call.body.key ? { key: row.key, value: String(call.body.value) } : row));
      return { body: { success: true, message: '' } };
    });
    renderPage(
      <>
        <OptionSection title="address card" keys={['ServerAddress']} saveLabel="save address">
          <OptionField name="ServerAddress" label="server" />
        </OptionSection>
        <OptionSection title="retry card" keys={['RetryTimes']} saveLabel="save retries">
          <OptionField name="RetryTimes" label="retries" />
        </OptionSection>
      </>,
      { user: root },
    );
    const address = await screen.findByDisplayValue('https://old.example.com');
    await userEvent.clear(address);
    await userEvent.type(address, 'https://typed.example.com');
    const retries = screen.getByLabelText('retries');
    await userEvent.clear(retries);
    await userEvent.type(retries, '3');
    await userEvent.click(screen.getByRole('button', { name: 'save retries' }));
    expect(await screen.findByText('保存成功')).toBeInTheDocument();
    await waitFor(() => expect(fake.callsTo('GET', '/api/option/').length).toBeGreaterThan(1));
    expect(screen.getByLabelText('server')).toHaveValue('https://typed.example.com');
    expect(screen.getByLabelText('retries')).toHaveValue('3');
  });
});
