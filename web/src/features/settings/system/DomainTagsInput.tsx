import { useState } from 'react';
import { App, Button, Flex, Input, Space, Tag } from 'antd';
import { useText } from '../../../app/use-text';

/** The domains of a comma-separated whitelist, blanks dropped. */
export function splitDomains(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((domain) => domain.trim())
    .filter(Boolean);
}

interface DomainTagsInputProps {
  /** The whitelist as stored: domains joined by commas. */
  value?: string;
  onChange?: (value: string) => void;
  id?: string;
}

/**
 * A form control for the email domain whitelist: removable tags and an input with an add
 * button. A domain is trimmed and lowercased; an empty or already listed one is not added.
 */
export function DomainTagsInput({ value, onChange, id }: DomainTagsInputProps) {
  const t = useText();
  const { message } = App.useApp();
  const [draft, setDraft] = useState('');
  const domains = splitDomains(value);

  const add = () => {
    const domain = draft.trim().toLowerCase();
    if (!domain) return;
    if (domains.includes(domain)) {
      void message.warning(t('pages.settings.system.email.whitelist.duplicate', '域名 {domain} 已在白名单中', { domain }));
      return;
    }
    onChange?.([...domains, domain].join(','));
    setDraft('');
  };

  return (
    <Flex vertical gap={8}>
      <Flex wrap gap={4}>
        {domains.map((domain) => (
          <Tag key={domain} closable onClose={() => onChange?.(domains.filter((other) => other !== domain).join(','))}>
            {domain}
          </Tag>
        ))}
      </Flex>
      <Space.Compact style={{ maxWidth: 480 }}>
        <Input
          id={id}
          value={draft}
          placeholder={t('pages.settings.system.email.whitelist.placeholder', '输入要允许的邮箱域名，例如 example.com')}
          onChange={(event) => setDraft(event.target.value)}
          onPressEnter={(event) => {
            event.preventDefault();
            add();
          }}
        />
        <Button onClick={add}>{t('pages.settings.system.email.whitelist.add', '添加')}</Button>
      </Space.Compact>
    </Flex>
  );
}
