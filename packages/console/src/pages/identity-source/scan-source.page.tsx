import { firstScanModes } from '@tessera/contract/constants';
import { Form, Input, Radio, Switch, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  FormSection,
  NameField,
  requiredRule,
  SourceForm,
  SourceScreen,
  SyncIntervalField,
} from './source-form.tsx';
import type { ScanDetail, ScanType } from './source-view.ts';
import { SyncRunsCard } from './sync-runs.card.tsx';
import { useSourceSave } from './use-source-save.ts';

/** The credentials each provider issues: the form's field, its label, and whether it is the secret. */
const credentials: Record<ScanType, { name: string; label: string; secret?: boolean }[]> = {
  dingtalk: [
    { name: 'appKey', label: 'AppKey' },
    { name: 'appSecret', label: 'AppSecret', secret: true },
  ],
  weixin: [
    { name: 'appId', label: 'AppID' },
    { name: 'appSecret', label: 'AppSecret', secret: true },
  ],
  work_weixin: [
    { name: 'corpId', label: 'CorpID' },
    { name: 'agentId', label: 'AgentID' },
    { name: 'secret', label: 'Secret', secret: true },
  ],
};
const syncable = (type: ScanType) => type !== 'weixin';

type ScanValues = Record<string, string | number | boolean>;

/** /identity-source/dingtalk/{id?}, /weixin/{id?} and /WorkWeixin/{id?}: a scan sign-in source. */
function scanSourcePage(type: ScanType) {
  return function ScanSourcePage() {
    return (
      <SourceScreen type={type}>
        {(detail, onSaved) => (
          <ScanForm
            key={detail?.sourceId ?? 'new'}
            type={type}
            detail={detail as ScanDetail | undefined}
            onSaved={onSaved}
          />
        )}
      </SourceScreen>
    );
  };
}

function ScanForm({
  type,
  detail,
  onSaved,
}: {
  type: ScanType;
  detail?: ScanDetail;
  onSaved(detail: ScanDetail): void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<ScanValues>();
  const valuesOf = (source?: ScanDetail): ScanValues => {
    const { secretSet: _set, ...settings } = (source?.settings ?? {}) as ScanValues;
    return {
      name: t(`sources.type.${type}`),
      enabled: true,
      firstScan: 'link_only',
      ...(syncable(type) ? { syncIntervalMinutes: 0 } : {}),
      ...Object.fromEntries(credentials[type].map((field) => [field.name, ''])),
      ...settings,
    };
  };
  const [initial] = useState(() => valuesOf(detail));
  const fields = ['name', 'syncIntervalMinutes', ...credentials[type].map((field) => field.name)];
  const { saving, submit } = useSourceSave({
    type,
    form,
    sourceId: detail?.sourceId,
    fields,
    toInput: (values) => values as never,
    onSaved: (saved) => {
      if (saved.type !== type) return;
      onSaved(saved as ScanDetail);
      form.setFieldsValue(valuesOf(saved as ScanDetail));
    },
  });

  return (
    <>
      <SourceForm<ScanValues>
        form={form}
        initialValues={initial}
        saving={saving}
        isNew={!detail}
        onSubmit={() => void submit()}
        testId={`scan-source-${type}`}
      >
        <FormSection title={t(`sources.type.${type}`)} hint={t(`sources.typeHint.${type}`)}>
          <NameField />
          <Form.Item name="enabled" label={t('sources.form.enabled')} valuePropName="checked">
            <Switch />
          </Form.Item>
          <Form.Item label={t('sources.form.callbackUrl')} extra={t('sources.form.callbackHint')}>
            {detail ? (
              <Typography.Text copyable code data-testid="callback-url" style={{ wordBreak: 'break-all' }}>
                {detail.callbackUrl}
              </Typography.Text>
            ) : (
              <Typography.Text type="secondary">{t('sources.form.callbackAfterSave')}</Typography.Text>
            )}
          </Form.Item>
        </FormSection>

        <FormSection title={t('sources.form.credentials')}>
          {credentials[type].map((field) => (
            <Form.Item
              key={field.name}
              name={field.name}
              label={field.label}
              extra={field.secret && detail?.settings.secretSet ? t('sources.form.secretKept') : undefined}
              rules={
                field.secret && detail?.settings.secretSet ? [] : [requiredRule(t('sources.form.required'))]
              }
            >
              {field.secret ? (
                <Input.Password autoComplete="new-password" />
              ) : (
                <Input style={{ fontFamily: 'monospace' }} autoComplete="off" />
              )}
            </Form.Item>
          ))}
        </FormSection>

        <FormSection title={t('sources.form.firstScan')}>
          <Form.Item name="firstScan" noStyle>
            <Radio.Group
              style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
              options={firstScanModes.map((mode) => ({
                value: mode,
                label: t(`sources.form.firstScanMode.${mode}`),
              }))}
            />
          </Form.Item>
          {syncable(type) ? (
            <div style={{ marginTop: 16 }}>
              <SyncIntervalField last />
            </div>
          ) : null}
        </FormSection>
      </SourceForm>
      {syncable(type) && detail ? <SyncRunsCard sourceId={detail.sourceId} enabled={detail.enabled} /> : null}
    </>
  );
}

export const DingtalkSourcePage = scanSourcePage('dingtalk');
export const WeixinSourcePage = scanSourcePage('weixin');
export const WorkWeixinSourcePage = scanSourcePage('work_weixin');
