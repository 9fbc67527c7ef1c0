import { type LdapPreset, ldapPresets, identitySourceLimits as limits } from '@tessera/contract/constants';
import { Button, Flex, Form, Input, InputNumber, Space, Switch, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { BackButton, DetailMissing } from '../../components/detail-nav.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { LdapTestCard } from './ldap-test.card.tsx';
import { FormSection, requiredRule, SourceForm } from './source-form.tsx';
import { type LdapDetail, SOURCE_LIST_PATH, type SourceInput } from './source-view.ts';
import { SyncRunsCard } from './sync-runs.card.tsx';
import { useSourceSave } from './use-source-save.ts';

type LdapInput = Omit<SourceInput<'ldap'>, 'type'>;
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
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const sourceId = useParams().id;
  const load = useCallback(
    () =>
      sourceId ? callApi('/api/v1/manage/identity-source/detail', { sourceId }) : Promise.resolve(undefined),
    [callApi, sourceId],
  );
  const { data, setData, loading } = useLoad(load);
  if (sourceId && data?.type !== 'ldap')
    return (
      <DetailMissing
        loading={loading}
        status="404"
        title={t('sources.form.notFound')}
        backTo={SOURCE_LIST_PATH}
        backLabel={t('sources.form.back')}
      />
    );
  const detail = data?.type === 'ldap' ? data : undefined;
  return <LdapForm key={detail?.sourceId ?? 'new'} detail={detail} onSaved={setData} />;
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
  const required = requiredRule(t('sources.form.required'));
  const text = (name: keyof LdapValues, max: number, extra?: string, mono = true) => (
    <Form.Item
      name={name}
      label={t(`sources.ldap.${name}` as 'sources.ldap.url')}
      extra={extra}
      rules={[{ max }]}
    >
      <Input style={mono ? { fontFamily: 'monospace' } : undefined} />
    </Form.Item>
  );

  return (
    <Flex vertical gap={16} style={{ maxWidth: 1000 }}>
      <BackButton to={SOURCE_LIST_PATH}>{t('sources.form.back')}</BackButton>
      <SourceForm<LdapValues>
        form={form}
        initialValues={initial}
        saving={saving}
        isNew={!detail}
        onSubmit={() => void submit()}
        testId="ldap-source"
      >
        <FormSection title={t('sources.ldap.server')}>
          <Form.Item
            name="name"
            label={t('sources.form.name')}
            rules={[requiredRule(t('sources.form.nameRequired'))]}
          >
            <Input count={{ show: true, max: limits.nameMax }} />
          </Form.Item>
          <Form.Item
            name="url"
            label={t('sources.ldap.url')}
            extra={t('sources.ldap.urlHint')}
            rules={[required]}
          >
            <Input style={{ fontFamily: 'monospace' }} inputMode="url" />
          </Form.Item>
          <Form.Item
            name="startTls"
            label={t('sources.ldap.startTls')}
            extra={t('sources.ldap.startTlsHint')}
            valuePropName="checked"
          >
            <Switch />
          </Form.Item>
          <Form.Item
            name="verifyCertificate"
            label={t('sources.ldap.verifyCertificate')}
            extra={t('sources.ldap.verifyHint')}
            valuePropName="checked"
          >
            <Switch />
          </Form.Item>
          <Form.Item
            name="caCertificate"
            label={t('sources.ldap.caCertificate')}
            extra={t('sources.ldap.caHint')}
          >
            <Input.TextArea rows={3} style={{ fontFamily: 'monospace', fontSize: 12 }} />
          </Form.Item>
          {text('bindDn', limits.dnMax, t('sources.ldap.bindDnHint'))}
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
          <Form.Item name="userRootDn" label={t('sources.ldap.userRootDn')} rules={[required]}>
            <Input style={{ fontFamily: 'monospace' }} />
          </Form.Item>
          <Form.Item name="usernameAttribute" label={t('sources.ldap.usernameAttribute')} rules={[required]}>
            <Input style={{ fontFamily: 'monospace' }} />
          </Form.Item>
          {text('userDnTemplate', limits.dnMax, t('sources.ldap.userDnTemplateHint'))}
          <Form.Item
            name="uniqueIdAttribute"
            label={t('sources.ldap.uniqueIdAttribute')}
            extra={t('sources.ldap.uniqueIdHint')}
            rules={[required]}
          >
            <Input style={{ fontFamily: 'monospace' }} />
          </Form.Item>
          <Form.Item name="userFilter" label={t('sources.ldap.userFilter')} rules={[required]}>
            <Input style={{ fontFamily: 'monospace' }} />
          </Form.Item>
        </FormSection>

        <FormSection title={t('sources.ldap.groups')} hint={t('sources.ldap.groupsHint')}>
          {text('groupRootDn', limits.dnMax)}
          {text('groupFilter', limits.filterMax)}
          {text('groupIdAttribute', limits.attributeMax)}
          {text('membershipAttribute', limits.attributeMax)}
          <Form.Item
            name="syncIntervalMinutes"
            label={t('sources.form.syncInterval')}
            extra={t('sources.form.syncIntervalHint')}
          >
            <InputNumber
              min={0}
              max={limits.syncIntervalMinutes.max}
              precision={0}
              suffix={t('sources.form.minutes')}
              style={{ width: 200 }}
            />
          </Form.Item>
        </FormSection>

        <FormSection title={t('sources.ldap.signIn')}>
          <Form.Item name="enabled" label={t('sources.form.enabled')} valuePropName="checked">
            <Switch />
          </Form.Item>
          <Form.Item
            name="skipMfa"
            label={t('sources.ldap.skipMfa')}
            extra={t('sources.ldap.skipMfaHint')}
            valuePropName="checked"
            style={{ marginBottom: 0 }}
          >
            <Switch />
          </Form.Item>
        </FormSection>

        <LdapTestCard form={form} sourceId={detail?.sourceId} />
      </SourceForm>
      {detail ? (
        <SyncRunsCard sourceId={detail.sourceId} enabled={detail.enabled} />
      ) : (
        <Typography.Text type="secondary">{t('sources.sync.saveFirst')}</Typography.Text>
      )}
    </Flex>
  );
}
