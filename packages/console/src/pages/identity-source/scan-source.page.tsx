import { firstScanModes, identitySourceLimits as limits } from '@tessera/contract/constants';
import { Flex, Form, Input, InputNumber, Radio, Switch, Typography } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { BackButton, DetailMissing } from '../../components/detail-nav.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { FormSection, requiredRule, SourceForm } from './source-form.tsx';
import { type ScanDetail, type ScanType, SOURCE_LIST_PATH } from './source-view.ts';
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
export function scanSourcePage(type: ScanType) {
  return function ScanSourcePage() {
    const { t } = useTranslation();
    const { callApi } = useConsole();
    const sourceId = useParams().id;
    const load = useCallback(
      () =>
        sourceId
          ? callApi('/api/v1/manage/identity-source/detail', { sourceId })
          : Promise.resolve(undefined),
      [callApi, sourceId],
    );
    const { data, setData, loading } = useLoad(load);
    if (sourceId && data?.type !== type)
      return (
        <DetailMissing
          loading={loading}
          status="404"
          title={t('sources.form.notFound')}
          backTo={SOURCE_LIST_PATH}
          backLabel={t('sources.form.back')}
        />
      );
    const detail = data?.type === type ? (data as ScanDetail) : undefined;
    return <ScanForm key={detail?.sourceId ?? 'new'} type={type} detail={detail} onSaved={setData} />;
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
    <Flex vertical gap={16} style={{ maxWidth: 1000 }}>
      <BackButton to={SOURCE_LIST_PATH}>{t('sources.form.back')}</BackButton>
      <SourceForm<ScanValues>
        form={form}
        initialValues={initial}
        saving={saving}
        isNew={!detail}
        onSubmit={() => void submit()}
        testId={`scan-source-${type}`}
      >
        <FormSection title={t(`sources.type.${type}`)} hint={t(`sources.typeHint.${type}`)}>
          <Form.Item
            name="name"
            label={t('sources.form.name')}
            rules={[requiredRule(t('sources.form.nameRequired'))]}
          >
            <Input count={{ show: true, max: limits.nameMax }} />
          </Form.Item>
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
            <Form.Item
              name="syncIntervalMinutes"
              label={t('sources.form.syncInterval')}
              extra={t('sources.form.syncIntervalHint')}
              style={{ marginTop: 16, marginBottom: 0 }}
            >
              <InputNumber
                min={0}
                max={limits.syncIntervalMinutes.max}
                precision={0}
                suffix={t('sources.form.minutes')}
                style={{ width: 200 }}
              />
            </Form.Item>
          ) : null}
        </FormSection>
      </SourceForm>
      {syncable(type) && detail ? <SyncRunsCard sourceId={detail.sourceId} enabled={detail.enabled} /> : null}
    </Flex>
  );
}

export const DingtalkSourcePage = scanSourcePage('dingtalk');
export const WeixinSourcePage = scanSourcePage('weixin');
export const WorkWeixinSourcePage = scanSourcePage('work_weixin');
