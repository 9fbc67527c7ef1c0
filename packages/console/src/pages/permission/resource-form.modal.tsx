import { ACTION_PATTERN, permissionLimits, resourceTypes } from '@tessera/contract/constants';
import { Form, Input, Modal, Select } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showFieldErrors } from '../org/server-errors.ts';
import type { AppOption, Resource } from './permission-types.ts';

interface ResourceValues {
  appId: string;
  name: string;
  type: Resource['type'];
  description?: string;
  data?: string;
  actions: string[];
}

/** Creates a resource of an application (spec §5: the name is required) or edits one. */
export function ResourceFormModal({
  target,
  apps,
  defaultAppId,
  onClose,
  onSaved,
}: {
  /** `null`: a new resource; a resource: edit it; undefined: closed. */
  target: Resource | null | undefined;
  apps: AppOption[];
  defaultAppId?: string;
  onClose(): void;
  onSaved(): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<ResourceValues>();

  useEffect(() => {
    if (target === undefined) return;
    form.resetFields();
    form.setFieldsValue(
      target
        ? { ...target, description: target.description ?? '', data: target.data ?? '' }
        : { appId: defaultAppId, type: 'api', actions: ['read'] },
    );
  }, [form, target, defaultAppId]);

  const { saving, submit } = useFormSubmit(
    form,
    target !== undefined
      ? async (values) => {
          const fields = {
            name: values.name.trim(),
            type: values.type,
            description: values.description?.trim() || null,
            data: values.data?.trim() || null,
            actions: values.actions,
          };
          const saved = target
            ? await callApi('/api/v1/manage/permission/resource/update', {
                resourceId: target.resourceId,
                ...fields,
              })
            : await callApi('/api/v1/manage/permission/resource/create', { appId: values.appId, ...fields });
          void message.success(
            t(target ? 'permission.resource.saved' : 'permission.resource.created', { name: saved.name }),
          );
          onSaved();
        }
      : undefined,
    (error) => showFieldErrors(form, error, ['appId', 'name', 'actions', 'description', 'data']),
  );

  const max = (limit: number) => ({
    max: limit,
    transform: (value?: string) => value?.trim(),
    message: t('permission.common.tooLong', { max: limit }),
  });

  return (
    <Modal
      open={target !== undefined}
      title={target ? target.name : t('permission.resource.create')}
      okText={target ? t('permission.common.save') : t('permission.common.create')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      forceRender
    >
      <Form<ResourceValues> form={form} layout="vertical" disabled={saving} onFinish={submit} name="resource">
        <Form.Item
          name="appId"
          label={t('permission.common.app')}
          rules={[{ required: true, message: t('permission.common.chooseApp') }]}
        >
          <Select options={apps} disabled={Boolean(target)} showSearch={{ optionFilterProp: 'label' }} />
        </Form.Item>
        <Form.Item
          name="name"
          label={t('permission.resource.name')}
          rules={[
            { required: true, whitespace: true, message: t('permission.resource.nameRequired') },
            max(permissionLimits.nameMax),
          ]}
        >
          <Input maxLength={permissionLimits.nameMax} autoComplete="off" />
        </Form.Item>
        <Form.Item name="type" label={t('permission.resource.type')}>
          <Select
            options={resourceTypes.map((type) => ({
              value: type,
              label: t(`permission.resource.types.${type}`),
            }))}
          />
        </Form.Item>
        <Form.Item
          name="actions"
          label={t('permission.resource.actions')}
          extra={t('permission.resource.actionsHint')}
          rules={[
            {
              validator: async (_rule, value: string[] | undefined) => {
                if ((value ?? []).some((action) => !ACTION_PATTERN.test(action)))
                  throw new Error(t('permission.resource.actionInvalid'));
              },
            },
          ]}
        >
          <Select mode="tags" tokenSeparators={[',', ' ']} open={false} suffixIcon={null} />
        </Form.Item>
        <Form.Item
          name="description"
          label={t('permission.resource.description')}
          rules={[max(permissionLimits.descriptionMax)]}
        >
          <Input maxLength={permissionLimits.descriptionMax} />
        </Form.Item>
        <Form.Item
          name="data"
          label={t('permission.resource.data')}
          extra={t('permission.resource.dataHint')}
          rules={[max(permissionLimits.dataMax)]}
          style={{ marginBottom: 0 }}
        >
          <Input.TextArea rows={2} maxLength={permissionLimits.dataMax} />
        </Form.Item>
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
