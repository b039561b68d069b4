import { useMemo } from 'react';
import type { FormRule } from 'antd';
import { useIntl } from 'react-intl';
import { DISPLAY_NAME_MAX, PASSWORD_MAX, PASSWORD_MIN, USERNAME_MAX } from '@aigw/contracts';

/** The contracts' limits (docs/product.md section 4) as form rules with the console's messages. */
export function useUserFieldRules(): { usernameMax: FormRule; displayNameMax: FormRule } {
  const intl = useIntl();
  return useMemo(
    () => ({
      usernameMax: {
        max: USERNAME_MAX,
        message: intl.formatMessage({ id: 'pages.users.rule.usernameMax', defaultMessage: '用户名最多 {max} 个字符' }, { max: USERNAME_MAX }),
      },
      displayNameMax: {
        max: DISPLAY_NAME_MAX,
        message: intl.formatMessage({ id: 'pages.users.rule.displayNameMax', defaultMessage: '显示名称最多 {max} 个字符' }, { max: DISPLAY_NAME_MAX }),
      },
    }),
    [intl],
  );
}

/** Password length 8 to 20; an empty value is left to the form's own required rule (or kept, when editing). */
export function usePasswordRules(): FormRule[] {
  const intl = useIntl();
  return useMemo(
    () => [
      {
        min: PASSWORD_MIN,
        message: intl.formatMessage({ id: 'pages.users.rule.passwordMin', defaultMessage: '密码长度不得小于 {min} 位！' }, { min: PASSWORD_MIN }),
      },
      {
        max: PASSWORD_MAX,
        message: intl.formatMessage({ id: 'pages.users.rule.passwordMax', defaultMessage: '密码长度不得超过 {max} 位！' }, { max: PASSWORD_MAX }),
      },
    ],
    [intl],
  );
}
