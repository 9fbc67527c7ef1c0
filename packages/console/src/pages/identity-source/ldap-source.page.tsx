import { type LdapPreset, ldapPresets, identitySourceLimits as limits } from '@tessera/contract/constants';
import { Button, Form, Input, Space, Switch, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFeedback } from '../../app/feedback.ts';
import type { Phrases } from '../../i18n/en/index.ts';
import { LdapTestCard } from './ldap-test.card.tsx';
import {
  FormSection,
  NameField,
  requiredRule,
  SourceForm,
  SourceScreen,
  SyncIntervalField,
} from './source-form.tsx';
import type { LdapDetail, SourceInput } from './source-view.ts';
import { SyncRunsCard } from './sync-runs.card.tsx';
import { useSourceSave } from './use-source-save.ts';

type LdapInput = Omit<SourceInput<'ldap'>, 'type'>;
type Hint =
  | 'urlHint'
  | 'startTlsHint'
  | 'verifyHint'
  | 'bindDnHint'
  | 'userDnTemplateHint'
  | 'uniqueIdHint'
  | 'skipMfaHint';
type Field = { required?: boolean; hint?: Hint };
/** The form's values: every field as text (empty for none). */
export type LdapValues = { [K in keyof LdapInput]-?: NonNullable<LdapInput[K]> };

const fields = [
  'name',
  'url',
  'caCertificate',
  'bindDn',
  'bindPassword',
  'userRootDn',
  'usernameAttribute',
  'userDnTemplate',
  'uniqueIdAttribute',
  'userFilter',
  'groupRootDn',
  'groupFilter',
  'groupIdAttribute',
  'membershipAttribute',
  'syncIntervalMinutes',
] as const;

const blank: LdapValues = {
  name: '',
  enabled: true,
  url: 'ldap://',
  startTls: false,
  verifyCertificate: true,
  caCertificate: '',
  bindDn: '',
  bindPassword: '',
  userRootDn: '',
  userDnTemplate: '',
  groupRootDn: '',
  testUsername: '',
  skipMfa: false,
  syncIntervalMinutes: 0,
  ...ldapPresets.openldap,
};

const valuesOf = (detail: LdapDetail): LdapValues => {
  const { bindPasswordSet: _set, ...settings } = detail.settings;
  const values = { ...blank };
  for (const [key, value] of Object.entries(settings))
    if (value !== null) Object.assign(values, { [key]: value });
  return { ...values, bindPassword: '' };
};

/** /identity-source/add-ldap and /identity-source/ldap-detail/{id}: one screen with every LDAP field of spec §3. */
export function LdapSourcePage() {
  return (
    <SourceScreen type="ldap">
      {(detail, onSaved) => <LdapForm key={detail?.sourceId ?? 'new'} detail={detail} onSaved={onSaved} />}
    </SourceScreen>
  );
}

function LdapForm({ detail, onSaved }: { detail?: LdapDetail; onSaved(detail: LdapDetail): void }) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const [form] = Form.useForm<LdapValues>();
  const [initial] = useState(() => (detail ? valuesOf(detail) : blank));
  const { saving, submit } = useSourceSave({
    type: 'ldap',
    form,
    sourceId: detail?.sourceId,
    fields,
    toInput: (values) => values,
    onSaved: (saved) => {
      if (saved.type !== 'ldap') return;
      onSaved(saved);
      form.setFieldsValue(valuesOf(saved));
    },
  });
  const preset = (name: LdapPreset) => {
    form.setFieldsValue(ldapPresets[name]);
    void message.success(t('sources.ldap.presetApplied', { name: t(`sources.ldap.presets.${name}`) }));
  };
  const required = [requiredRule(t('sources.form.required'))];
  /** A text field of the directory (monospace), with its label and hint from the phrases. */
  const text = (
    name: keyof LdapValues & keyof Phrases['sources']['ldap'],
    max: number,
    options: Field = {},
  ) => (
    <Form.Item
      name={name}
      label={t(`sources.ldap.${name}` as 'sources.ldap.url')}
      extra={options.hint ? t(`sources.ldap.${options.hint}`) : undefined}
      rules={options.required ? [...required, { max }] : [{ max }]}
    >
      <Input style={{ fontFamily: 'monospace' }} inputMode={name === 'url' ? 'url' : undefined} />
    </Form.Item>
  );
  const flag = (name: 'startTls' | 'verifyCertificate' | 'skipMfa', hint: Hint, last = false) => (
    <Form.Item
      name={name}
      label={t(`sources.ldap.${name}`)}
      extra={t(`sources.ldap.${hint}`)}
      valuePropName="checked"
      style={last ? { marginBottom: 0 } : undefined}
    >
      <Switch />
    </Form.Item>
  );

  return (
    <>
      <SourceForm<LdapValues>
        form={form}
        initialValues={initial}
        saving={saving}
        isNew={!detail}
        onSubmit={() => void submit()}
        testId="ldap-source"
      >
        <FormSection title={t('sources.ldap.server')}>
          <NameField />
          {text('url', limits.urlMax, { required: true, hint: 'urlHint' })}
          {flag('startTls', 'startTlsHint')}
          {flag('verifyCertificate', 'verifyHint')}
          <Form.Item
            name="caCertificate"
            label={t('sources.ldap.caCertificate')}
            extra={t('sources.ldap.caHint')}
          >
            <Input.TextArea rows={3} style={{ fontFamily: 'monospace', fontSize: 12 }} />
          </Form.Item>
          {text('bindDn', limits.dnMax, { hint: 'bindDnHint' })}
          <Form.Item
            name="bindPassword"
            label={t('sources.ldap.bindPassword')}
            extra={detail?.settings.bindPasswordSet ? t('sources.form.secretKept') : undefined}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
        </FormSection>

        <FormSection title={t('sources.ldap.users')}>
          <Form.Item label={t('sources.ldap.preset')}>
            <Space wrap>
              {(Object.keys(ldapPresets) as LdapPreset[]).map((name) => (
                <Button key={name} size="small" onClick={() => preset(name)} data-testid={`preset-${name}`}>
                  {t(`sources.ldap.presets.${name}`)}
                </Button>
              ))}
            </Space>
          </Form.Item>
          {text('userRootDn', limits.dnMax, { required: true })}
          {text('usernameAttribute', limits.attributeMax, { required: true })}
          {text('userDnTemplate', limits.dnMax, { hint: 'userDnTemplateHint' })}
          {text('uniqueIdAttribute', limits.attributeMax, { required: true, hint: 'uniqueIdHint' })}
          {text('userFilter', limits.filterMax, { required: true })}
        </FormSection>

        <FormSection title={t('sources.ldap.groups')} hint={t('sources.ldap.groupsHint')}>
          {text('groupRootDn', limits.dnMax)}
          {text('groupFilter', limits.filterMax)}
          {text('groupIdAttribute', limits.attributeMax)}
          {text('membershipAttribute', limits.attributeMax)}
          <SyncIntervalField last />
        </FormSection>

        <FormSection title={t('sources.ldap.signIn')}>
          <Form.Item name="enabled" label={t('sources.form.enabled')} valuePropName="checked">
            <Switch />
          </Form.Item>
          {flag('skipMfa', 'skipMfaHint', true)}
        </FormSection>

        <LdapTestCard form={form} sourceId={detail?.sourceId} />
      </SourceForm>
      {detail ? (
        <SyncRunsCard sourceId={detail.sourceId} enabled={detail.enabled} />
      ) : (
        <Typography.Text type="secondary">{t('sources.sync.saveFirst')}</Typography.Text>
      )}
    </>
  );
}
