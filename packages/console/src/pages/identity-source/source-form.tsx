import { Button, Card, Flex, Form, type FormInstance, Grid, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

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
