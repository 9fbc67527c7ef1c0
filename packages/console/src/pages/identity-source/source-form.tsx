import { type IdentitySourceType, identitySourceLimits } from '@tessera/contract/constants';
import { Button, Card, Flex, Form, type FormInstance, Grid, Input, InputNumber, Typography } from 'antd';
import { type ReactNode, useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { BackButton, DetailMissing } from '../../components/detail-nav.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { SOURCE_LIST_PATH, type SourceDetail } from './source-view.ts';

/** A titled section of a source's form, with an optional explanation under the title. */
export function FormSection({
  title,
  hint,
  children,
}: {
  title: string;
  hint?: string;
  children: ReactNode;
}) {
  return (
    <Card title={title}>
      {hint ? (
        <Typography.Paragraph type="secondary" style={{ marginTop: -4 }}>
          {hint}
        </Typography.Paragraph>
      ) : null}
      {children}
    </Card>
  );
}

/** The frame of a source's form: labels beside the fields (above them on narrow screens) and Save. */
export function SourceForm<Values extends object>({
  form,
  initialValues,
  saving,
  isNew,
  onSubmit,
  testId,
  children,
}: {
  form: FormInstance<Values>;
  initialValues: Partial<Values>;
  saving: boolean;
  isNew: boolean;
  onSubmit(): void;
  testId: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const narrow = !(Grid.useBreakpoint().md ?? true);
  return (
    <Form<Values>
      form={form}
      layout={narrow ? 'vertical' : 'horizontal'}
      labelCol={narrow ? undefined : { flex: '220px' }}
      labelWrap
      wrapperCol={narrow ? undefined : { flex: '1 1 0', style: { minWidth: 0 } }}
      initialValues={initialValues as never}
      disabled={saving}
      onFinish={onSubmit}
      data-testid={testId}
    >
      <Flex vertical gap={16}>
        {children}
        <div>
          <Button type="primary" htmlType="submit" loading={saving}>
            {isNew ? t('sources.form.create') : t('sources.form.save')}
          </Button>
        </div>
      </Flex>
    </Form>
  );
}

/** The required rule of a text field, with the form's message. */
export const requiredRule = (message: string) => ({ required: true, whitespace: true, message });

/**
 * A source's screen: a new source (no id in the address) or the stored one of this type, loaded;
 * one of another type or of no such id is "not found".
 */
export function SourceScreen<T extends IdentitySourceType>({
  type,
  children,
}: {
  type: T;
  children(
    detail: Extract<SourceDetail, { type: T }> | undefined,
    onSaved: (saved: SourceDetail) => void,
  ): ReactNode;
}) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const sourceId = useParams().id;
  const load = useCallback(
    () =>
      sourceId ? callApi('/api/v1/manage/identity-source/detail', { sourceId }) : Promise.resolve(undefined),
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
  return (
    <Flex vertical gap={16} style={{ maxWidth: 1000 }}>
      <BackButton to={SOURCE_LIST_PATH}>{t('sources.form.back')}</BackButton>
      {children(data as Extract<SourceDetail, { type: T }> | undefined, setData)}
    </Flex>
  );
}

/** The connection name every source has. */
export function NameField() {
  const { t } = useTranslation();
  return (
    <Form.Item
      name="name"
      label={t('sources.form.name')}
      rules={[requiredRule(t('sources.form.nameRequired'))]}
    >
      <Input count={{ show: true, max: identitySourceLimits.nameMax }} />
    </Form.Item>
  );
}

/** Minutes between scheduled syncs (0: on demand only). */
export function SyncIntervalField({ last = false }: { last?: boolean }) {
  const { t } = useTranslation();
  return (
    <Form.Item
      name="syncIntervalMinutes"
      label={t('sources.form.syncInterval')}
      extra={t('sources.form.syncIntervalHint')}
      style={last ? { marginBottom: 0 } : undefined}
    >
      <InputNumber
        min={0}
        max={identitySourceLimits.syncIntervalMinutes.max}
        precision={0}
        suffix={t('sources.form.minutes')}
        style={{ width: 200 }}
      />
    </Form.Item>
  );
}
