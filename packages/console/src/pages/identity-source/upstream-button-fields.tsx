import { Form, Input, Select, Switch } from 'antd';
import { useTranslation } from 'react-i18next';

/**
 * The sign-in page's side of an upstream source (OpenID Connect, SAML): the logo on its button,
 * and the email domains home-realm discovery sends to it.
 */
export function UpstreamButtonFields() {
  const { t } = useTranslation();
  return (
    <>
      <Form.Item name="logoUrl" label={t('sources.upstream.logoUrl')} extra={t('sources.upstream.logoHint')}>
        <Input placeholder="https://" autoComplete="off" />
      </Form.Item>
      <Form.Item
        name="emailDomains"
        label={t('sources.upstream.emailDomains')}
        extra={t('sources.upstream.emailDomainsHint')}
      >
        <Select mode="tags" open={false} tokenSeparators={[',', ' ']} />
      </Form.Item>
    </>
  );
}

/** Whether signing out of Tessera signs out at the upstream provider too (on unless turned off). */
export function UpstreamSignOutField() {
  const { t } = useTranslation();
  return (
    <Form.Item
      name="signOutUpstream"
      label={t('sources.upstream.signOutUpstream')}
      extra={t('sources.upstream.signOutUpstreamHint')}
      valuePropName="checked"
    >
      <Switch />
    </Form.Item>
  );
}
