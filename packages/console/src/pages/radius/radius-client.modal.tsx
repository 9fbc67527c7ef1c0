import { radiusAccessModes, radiusLimits, radiusOtpModes } from '@tessera/contract/constants';
import { Flex, Form, Input, Modal, Radio, Switch, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiRequest } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { maxTrimmed, requiredText } from '../../lib/form-rules.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { DepartmentSelect } from '../org/department-select.tsx';
import { showFieldErrors } from '../org/server-errors.ts';
import { useDepartmentTree } from '../org/use-department-tree.ts';
import type { RadiusClient } from './radius.page.tsx';

type Values = Required<ApiRequest<'/api/v1/manage/radius/client/create'>>;
const fields = ['name', 'source', 'departmentIds'] as const;
const defaults: Values = {
  name: '',
  source: '',
  enabled: true,
  access: 'all',
  departmentIds: [],
  otpMode: 'challenge',
  smsCodes: false,
};

/** Adds a RADIUS client (its shared secret comes back once) or edits one. */
export function RadiusClientModal({
  target,
  onClose,
  onSaved,
}: {
  /** `null`: a new client; a client: edit it; undefined: closed. */
  target: RadiusClient | null | undefined;
  onClose(): void;
  /** The saved client, with its secret when it was just created. */
  onSaved(saved: { client: RadiusClient; secret?: string }): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<Values>();
  const { tree, loading: treeLoading } = useDepartmentTree();
  const access = Form.useWatch('access', form);
  const otpMode = Form.useWatch('otpMode', form);

  useEffect(() => {
    if (target === undefined) return;
    form.resetFields();
    form.setFieldsValue(
      target
        ? {
            ...target,
            departmentIds: target.departments.map((department) => department.departmentId),
          }
        : defaults,
    );
  }, [form, target]);

  const { saving, submit } = useFormSubmit(
    form,
    target !== undefined
      ? async (values) => {
          const body = {
            ...values,
            // The switch is on screen only once the watched mode has rendered, and a field off
            // screen is left out of the validated values: read it from the form's store instead.
            smsCodes: values.otpMode === 'challenge' && form.getFieldValue('smsCodes') === true,
            name: values.name.trim(),
            source: values.source.trim(),
            departmentIds: values.access === 'restricted' ? values.departmentIds : [],
          };
          if (target) {
            const client = await callApi('/api/v1/manage/radius/client/update', {
              clientId: target.clientId,
              ...body,
            });
            void message.success(t('radius.form.saved'));
            onSaved({ client });
          } else {
            const created = await callApi('/api/v1/manage/radius/client/create', body);
            void message.success(t('radius.form.created'));
            onSaved(created);
          }
        }
      : undefined,
    (error) => showFieldErrors(form, error, fields),
  );

  const tooLong = (max: number) => maxTrimmed(max, t('radius.form.tooLong', { max }));

  return (
    <Modal
      open={target !== undefined}
      title={target ? t('radius.form.editTitle', { name: target.name }) : t('radius.form.createTitle')}
      okText={target ? t('radius.form.save') : t('radius.form.create')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      forceRender
      width={560}
    >
      <Form<Values> form={form} layout="vertical" disabled={saving} onFinish={submit} name="radius-client">
        <Form.Item
          name="name"
          label={t('radius.form.name')}
          rules={[requiredText(t('radius.form.nameRequired')), tooLong(radiusLimits.nameMax)]}
        >
          <Input maxLength={radiusLimits.nameMax} autoComplete="off" />
        </Form.Item>
        <Form.Item
          name="source"
          label={t('radius.form.source')}
          extra={t('radius.form.sourceHint')}
          rules={[requiredText(t('radius.form.sourceRequired')), tooLong(radiusLimits.sourceMax)]}
        >
          <Input maxLength={radiusLimits.sourceMax} autoComplete="off" placeholder="10.0.0.0/24" />
        </Form.Item>
        <Form.Item name="enabled" label={t('radius.form.enabled')} valuePropName="checked">
          <Switch aria-label={t('radius.form.enabled')} />
        </Form.Item>
        <Form.Item name="access" label={t('radius.form.access')}>
          <Radio.Group>
            <Flex vertical gap={8}>
              {radiusAccessModes.map((value) => (
                <Radio key={value} value={value}>
                  {t(`radius.access.${value}`)}
                </Radio>
              ))}
            </Flex>
          </Radio.Group>
        </Form.Item>
        {access === 'restricted' && (
          <Form.Item
            name="departmentIds"
            label={t('radius.form.departments')}
            extra={t('radius.form.departmentsHint')}
            rules={[{ required: true, type: 'array', min: 1, message: t('radius.form.departmentsRequired') }]}
          >
            <DepartmentSelect
              multiple
              tree={tree}
              loading={treeLoading}
              aria-label={t('radius.form.departments')}
              style={{ width: '100%' }}
            />
          </Form.Item>
        )}
        <Form.Item name="otpMode" label={t('radius.form.otpMode')} style={{ marginBottom: 0 }}>
          <Radio.Group>
            <Flex vertical gap={8}>
              {radiusOtpModes.map((value) => (
                <Radio key={value} value={value}>
                  {t(`radius.otpMode.${value}`)}
                  <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12 }}>
                    {t(`radius.otpModeHint.${value}`)}
                  </Typography.Text>
                </Radio>
              ))}
            </Flex>
          </Radio.Group>
        </Form.Item>
        {otpMode === 'challenge' ? (
          <Form.Item
            name="smsCodes"
            label={t('radius.form.smsCodes')}
            extra={t('radius.form.smsCodesHint')}
            valuePropName="checked"
            style={{ marginTop: 16, marginBottom: 0 }}
          >
            <Switch />
          </Form.Item>
        ) : null}
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
