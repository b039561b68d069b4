import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Alert, App, Button, Card, Form, Input, InputNumber, Skeleton, Switch, type FormInstance, type FormItemProps } from 'antd';
import { useIntl } from 'react-intl';
import { localeFromAcceptLanguage, optionDefinitions, type OptionKey } from '@aigw/contracts';
import { api } from '../../api/api';
import type { ApiError } from '../../api/base-query';
import { useAppDispatch } from '../../app/store';
import { useText } from '../../app/use-text';
import { useGetOptionsQuery, useUpdateOptionMutation } from './options-api';
import { changedOptions, checkOptionValue, toFormValue, type FormValue, type OptionChange } from './option-values';

export type OptionFormValues = Record<string, FormValue>;

/**
 * Saves option changes one PUT per setting and reports the outcome (docs/product.md section 5):
 * nothing changed, saved, failed, or partly failed (with the server's reasons). Resolves to whether
 * all saved.
 */
export function useSaveOptions(): (changes: readonly OptionChange[]) => Promise<boolean> {
  const text = useText();
  const { message } = App.useApp();
  const dispatch = useAppDispatch();
  const [updateOption] = useUpdateOptionMutation();

  return useCallback(
    async (changes) => {
      if (changes.length === 0) {
        void message.info(text('pages.settings.save.unchanged', '你似乎并没有修改什么'));
        return false;
      }
      const failures: string[] = [];
      // In order: a switch saved with the setting it needs is never applied before it.
      for (const change of changes) {
        try {
          await updateOption(change).unwrap();
        } catch (error) {
          failures.push((error as ApiError).message || change.key);
        }
      }
      dispatch(api.util.invalidateTags(['Option', 'Status']));
      if (failures.length === 0) void message.success(text('pages.settings.save.succeeded', '保存成功'));
      else if (failures.length === changes.length) void message.error(`${text('pages.settings.save.failed', '保存失败，请重试')}: ${failures.join('; ')}`);
      else void message.error(`${text('pages.settings.save.partlyFailed', '部分保存失败，请重试')}: ${failures.join('; ')}`);
      return failures.length === 0;
    },
    [dispatch, message, text, updateOption],
  );
}

interface OptionSectionProps {
  title: ReactNode;
  /** A note above the fields: what the settings are for, where their values come from. */
  help?: ReactNode;
  /** The options this card edits and saves. */
  keys: readonly OptionKey[];
  /** The fields; a function gets the form, for fields that depend on each other. */
  children: ReactNode | ((form: FormInstance<OptionFormValues>) => ReactNode);
  /** A check across fields before saving; a message stops the save. */
  beforeSave?: (values: OptionFormValues) => string | undefined;
  /** More buttons beside Save. */
  extra?: ReactNode;
  saveLabel?: ReactNode;
}

/**
 * One settings card: loads the stored options, edits them in a form validated with the
 * contracts' own schemas, and saves only what changed, one PUT per setting, reporting the
 * outcomes (saved, failed, partly failed, check input, nothing changed).
 */
export function OptionSection({ title, help, keys, children, beforeSave, extra, saveLabel }: OptionSectionProps) {
  const intl = useIntl();
  const { message } = App.useApp();
  const [form] = Form.useForm<OptionFormValues>();
  const { data: stored, isLoading } = useGetOptionsQuery();
  const [saving, setSaving] = useState(false);

  // Keyed by this card's stored values only: a save in another card (which refetches every
  // option) or a caller's inline array must not reset what is being typed here.
  const ownStored = JSON.stringify(keys.map((key) => [key, stored?.[key] ?? null]));
  const initialValues = useMemo(
    () => Object.fromEntries((JSON.parse(ownStored) as Array<[OptionKey, string | null]>).map(([key, value]) => [key, toFormValue(key, value ?? undefined)])),
    [ownStored],
  );
  const loaded = stored !== undefined;
  // After this card's options changed on the server (its own save), the form shows them.
  useEffect(() => {
    if (loaded) form.setFieldsValue(initialValues);
  }, [form, initialValues, loaded]);

  const saveOptions = useSaveOptions();

  const save = async () => {
    let values: OptionFormValues;
    try {
      values = { ...initialValues, ...(await form.validateFields()) };
    } catch {
      void message.error(intl.formatMessage({ id: 'pages.settings.save.checkInput', defaultMessage: '请检查输入' }));
      return;
    }
    const crossCheck = beforeSave?.(values);
    if (crossCheck) {
      void message.error(crossCheck);
      return;
    }
    setSaving(true);
    await saveOptions(changedOptions(keys, values, stored ?? {}));
    setSaving(false);
  };

  return (
    <Card title={title} style={{ marginBottom: 16 }}>
      {isLoading ? (
        <Skeleton active />
      ) : (
        <Form<OptionFormValues> form={form} layout="vertical" initialValues={initialValues}>
          {help && <Alert type="info" showIcon style={{ marginBottom: 16 }} title={help} />}
          {typeof children === 'function' ? children(form) : children}
          <Form.Item style={{ marginBottom: 0 }}>
            <Button type="primary" onClick={() => void save()} loading={saving}>
              {saveLabel ?? intl.formatMessage({ id: 'pages.settings.save', defaultMessage: '保存设置' })}
            </Button>
            {extra}
          </Form.Item>
        </Form>
      )}
    </Card>
  );
}

interface OptionFieldProps extends Omit<FormItemProps, 'name' | 'children'> {
  name: OptionKey;
  /** Another input than the one the option's kind suggests. */
  input?: ReactNode;
}

/**
 * A form field for an option, with the input its kind calls for (switch, number, JSON text,
 * text, or a write-only secret) and the contracts' validation; JSON is checked on blur.
 */
export function OptionField({ name, input, rules, ...itemProps }: OptionFieldProps) {
  const intl = useIntl();
  const definition = optionDefinitions[name];
  const isJson = definition.kind === 'json';
  const validator = async (_rule: unknown, value: FormValue) => {
    if (definition.secret && !value) return;
    const problem = checkOptionValue(name, value, localeFromAcceptLanguage(intl.locale));
    if (problem === 'json') throw new Error(intl.formatMessage({ id: 'pages.settings.json.invalid', defaultMessage: '不是合法的 JSON 字符串' }));
    if (problem) throw new Error(problem);
  };

  const control =
    input ??
    (() => {
      if (definition.secret)
        return (
          <Input.Password
            autoComplete="new-password"
            placeholder={intl.formatMessage({ id: 'common.secret.placeholder', defaultMessage: '敏感信息不会发送到前端显示' })}
          />
        );
      switch (definition.kind) {
        case 'boolean':
          return <Switch />;
        case 'number':
          return <InputNumber style={{ width: '100%' }} />;
        case 'json':
          return <Input.TextArea autoSize={{ minRows: 4, maxRows: 16 }} style={{ fontFamily: 'monospace' }} />;
        default:
          return <Input />;
      }
    })();

  return (
    <Form.Item
      name={name}
      valuePropName={definition.kind === 'boolean' ? 'checked' : 'value'}
      validateTrigger={isJson ? 'onBlur' : 'onChange'}
      rules={[...(rules ?? []), { validator }]}
      {...itemProps}
    >
      {control}
    </Form.Item>
  );
}
