import { Button, Card, Flex, Form, type FormInstance, Grid, Result, Skeleton, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showSafetyFieldErrors } from './server-fields.ts';

/** Shared frame of the two safety screens: loading, the form layout, and Save / Undo. */
export function SafetyLoading({ loading, onRetry }: { loading: boolean; onRetry(): void }) {
  const { t } = useTranslation();
  return loading ? (
    <Card>
      <Skeleton active paragraph={{ rows: 8 }} />
    </Card>
  ) : (
    <Result
      status="warning"
      title={t('safety.loadFailed')}
      extra={
        <Button type="primary" onClick={onRetry}>
          {t('safety.retry')}
        </Button>
      }
    />
  );
}

/** A titled section of a safety form, with its explanation under the title. */
export function SafetySection({
  title,
  hint,
  children,
}: {
  title: string;
  hint: string;
  children: ReactNode;
}) {
  return (
    <Card title={title}>
      <Typography.Paragraph type="secondary" style={{ marginTop: -4 }}>
        {hint}
      </Typography.Paragraph>
      {children}
    </Card>
  );
}

/**
 * A safety form: validates (the same limits as the server), saves, puts what the server stored
 * back into the form, and marks the fields of a refused save.
 */
export function SafetyForm<Values extends object>({
  form,
  settings,
  fields,
  save,
  testId,
  children,
}: {
  form: FormInstance<Values>;
  settings: Values;
  /** The form's field paths (`password.minLength`) that server errors may name. */
  fields: readonly string[];
  save(values: Values): Promise<Values>;
  testId: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const narrow = !(Grid.useBreakpoint().md ?? true);
  const { saving, submit } = useFormSubmit(
    form,
    async (values: Values) => {
      const stored = await save(values);
      form.setFieldsValue(stored as never);
      void message.success(t('safety.saved'));
    },
    (error) => showSafetyFieldErrors(form, error, fields),
  );
  return (
    <Form<Values>
      form={form}
      layout={narrow ? 'vertical' : 'horizontal'}
      labelCol={narrow ? undefined : { flex: '240px' }}
      labelWrap
      // A basis of 0, so that a wide control (the MFA modes with their help) stays beside its label.
      wrapperCol={narrow ? undefined : { flex: '1 1 0', style: { minWidth: 0 } }}
      initialValues={settings}
      disabled={saving}
      onFinish={() => void submit()}
      data-testid={testId}
      style={{ maxWidth: 1000 }}
    >
      <Flex vertical gap={16}>
        {children}
        <Flex gap={8} wrap>
          <Button type="primary" htmlType="submit" loading={saving}>
            {t('safety.save')}
          </Button>
          <Button htmlType="button" onClick={() => form.resetFields()}>
            {t('safety.reset')}
          </Button>
        </Flex>
      </Flex>
    </Form>
  );
}
