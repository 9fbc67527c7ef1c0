import { permissionLimits } from '@tessera/contract/constants';
import { Button, Divider, Form, Input, Modal, Radio, Select } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { DepartmentSelect } from '../org/department-select.tsx';
import { showFieldErrors } from '../org/server-errors.ts';
import { useDepartmentTree } from '../org/use-department-tree.ts';
import { UserPicker } from '../org/user-picker.tsx';
import { ImpactPreview } from './impact-preview.tsx';
import type { AccessImpact, AppOption, Authorization } from './permission-types.ts';
import {
  RestrictionFields,
  type RestrictionValues,
  restrictionsOf,
  restrictionValuesOf,
} from './restriction-fields.tsx';
import { useAppResources, useRoleOptions } from './use-permission-data.ts';

interface AuthorizationValues {
  appId: string;
  subjectType: Authorization['subject']['type'];
  subjectId?: string | null;
  effect: Authorization['effect'];
  resourceScope: Authorization['resourceScope'];
  resourceIds: string[];
  actionScope: Authorization['actionScope'];
  actions: string[];
  restrictions: RestrictionValues;
  description?: string;
}

/** What the dialog works on: a new authorization (with a subject chosen already, or not) or one to change. */
export type AuthorizationTarget =
  | { mode: 'create'; subject?: { type: Authorization['subject']['type']; id: string; name: string } }
  | { mode: 'edit'; authorization: Authorization };

const valuesOf = (target: AuthorizationTarget, defaultAppId: string | undefined): AuthorizationValues => {
  if (target.mode === 'create')
    return {
      appId: defaultAppId ?? '',
      subjectType: target.subject?.type ?? 'user',
      subjectId: target.subject?.id,
      effect: 'allow',
      resourceScope: 'specific',
      resourceIds: [],
      actionScope: 'all',
      actions: [],
      restrictions: restrictionValuesOf(undefined),
    };
  const a = target.authorization;
  return {
    appId: a.appId,
    subjectType: a.subject.type,
    subjectId: a.subject.id,
    effect: a.effect,
    resourceScope: a.resourceScope,
    resourceIds: a.resources.map((r) => r.resourceId),
    actionScope: a.actionScope,
    actions: a.actions,
    restrictions: restrictionValuesOf(a.restrictions),
    description: a.description ?? '',
  };
};

/**
 * Creates or changes an authorization (spec §5: subject and resource are required). Saving is in
 * two steps: the form, then who would gain and who would lose which access; only then is it saved.
 */
export function AuthorizationFormModal({
  target,
  apps,
  defaultAppId,
  onClose,
  onSaved,
}: {
  target: AuthorizationTarget | undefined;
  apps: AppOption[];
  defaultAppId?: string;
  onClose(): void;
  onSaved(): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<AuthorizationValues>();
  const [impact, setImpact] = useState<{ body: ReturnType<typeof bodyOf>; impact: AccessImpact }>();
  const [busy, setBusy] = useState(false);
  const appId = Form.useWatch('appId', form);
  const subjectType = Form.useWatch('subjectType', form);
  const resourceScope = Form.useWatch('resourceScope', form);
  const actionScope = Form.useWatch('actionScope', form);
  const resourceIds = Form.useWatch('resourceIds', form);
  const resources = useAppResources(appId || undefined);
  const roles = useRoleOptions('');
  const { tree } = useDepartmentTree();
  const editing = target?.mode === 'edit' ? target.authorization : undefined;
  const known = target?.mode === 'edit' ? target.authorization.subject : target?.subject;

  useEffect(() => {
    if (!target) return;
    setImpact(undefined);
    form.resetFields();
    form.setFieldsValue(valuesOf(target, defaultAppId));
  }, [form, target, defaultAppId]);

  const actionOptions = useMemo(() => {
    const chosen =
      resourceScope === 'all' ? resources : resources.filter((r) => resourceIds?.includes(r.resourceId));
    return [...new Set(chosen.flatMap((r) => r.actions))].sort().map((a) => ({ value: a, label: a }));
  }, [resources, resourceIds, resourceScope]);

  const bodyOf = (values: AuthorizationValues) => ({
    appId: values.appId,
    subject: { type: values.subjectType, id: values.subjectId ?? '' },
    effect: values.effect,
    resourceScope: values.resourceScope,
    resourceIds: values.resourceScope === 'specific' ? values.resourceIds : [],
    actionScope: values.actionScope,
    actions: values.actionScope === 'specific' ? values.actions : [],
    restrictions: restrictionsOf(values.restrictions),
    description: values.description?.trim() || null,
  });

  const fieldNames = ['appId', 'subjectId', 'resourceIds', 'actions', 'description'];
  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (error) {
      showFieldErrors(form, error, fieldNames);
    } finally {
      setBusy(false);
    }
  };

  /** Step one: the form is checked, and the effect of the change is asked for. */
  const preview = async () => {
    let values: AuthorizationValues;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    const body = bodyOf(values);
    await run(async () => {
      const answer = await callApi('/api/v1/manage/permission/authorization/preview', {
        authorizationId: editing?.authorizationId,
        authorization: body,
      });
      setImpact({ body, impact: answer });
    });
  };

  /** Step two: saved as previewed. */
  const save = () =>
    run(async () => {
      if (!impact) return;
      if (editing)
        await callApi('/api/v1/manage/permission/authorization/update', {
          authorizationId: editing.authorizationId,
          authorization: impact.body,
        });
      else await callApi('/api/v1/manage/permission/authorization/create', impact.body);
      void message.success(
        t(editing ? 'permission.authorization.saved' : 'permission.authorization.created'),
      );
      onSaved();
    });

  const footer = impact
    ? [
        <Button key="back" onClick={() => setImpact(undefined)} disabled={busy}>
          {t('permission.authorization.back')}
        </Button>,
        <Button key="save" type="primary" loading={busy} onClick={() => void save()}>
          {t('permission.authorization.confirm')}
        </Button>,
      ]
    : [
        <Button key="cancel" onClick={onClose} disabled={busy}>
          {t('common.cancel')}
        </Button>,
        <Button key="next" type="primary" loading={busy} onClick={() => void preview()}>
          {t('permission.authorization.next')}
        </Button>,
      ];

  return (
    <Modal
      open={target !== undefined}
      title={editing ? editing.subject.name : t('permission.authorization.create')}
      footer={footer}
      onCancel={onClose}
      width={680}
      forceRender
    >
      {impact ? <ImpactPreview impact={impact.impact} /> : null}
      <Form<AuthorizationValues>
        form={form}
        layout="vertical"
        disabled={busy}
        onFinish={() => void preview()}
        name="authorization"
        style={{ display: impact ? 'none' : undefined }}
      >
        <Form.Item
          name="appId"
          label={t('permission.common.app')}
          rules={[{ required: true, message: t('permission.common.chooseApp') }]}
        >
          <Select
            options={apps}
            showSearch={{ optionFilterProp: 'label' }}
            onChange={() => form.setFieldsValue({ resourceIds: [], actions: [] })}
          />
        </Form.Item>
        <Form.Item name="subjectType" label={t('permission.authorization.subjectType')}>
          <Radio.Group
            optionType="button"
            options={(['user', 'role', 'department'] as const).map((type) => ({
              value: type,
              label: t(`permission.authorization.subjectTypes.${type}`),
            }))}
            onChange={() => form.setFieldsValue({ subjectId: null })}
          />
        </Form.Item>
        <Form.Item
          name="subjectId"
          label={t('permission.authorization.subject')}
          extra={subjectType === 'department' ? t('permission.authorization.subjectHint') : undefined}
          rules={[{ required: true, message: t('permission.authorization.subjectRequired') }]}
        >
          {subjectType === 'role' ? (
            <Select options={roles} showSearch={{ optionFilterProp: 'label' }} allowClear />
          ) : subjectType === 'department' ? (
            <DepartmentSelect tree={tree} />
          ) : (
            <UserPicker
              key={known?.id ?? 'none'}
              known={known?.type === 'user' ? [{ value: known.id, label: known.name }] : []}
            />
          )}
        </Form.Item>
        <Form.Item
          name="effect"
          label={t('permission.authorization.effect')}
          extra={t('permission.authorization.effectHint')}
        >
          <Radio.Group
            options={(['allow', 'reject'] as const).map((effect) => ({
              value: effect,
              label: t(`permission.authorization.effects.${effect}`),
            }))}
          />
        </Form.Item>
        <Form.Item name="resourceScope" label={t('permission.authorization.resourceScope')}>
          <Radio.Group
            options={(['specific', 'all'] as const).map((scope) => ({
              value: scope,
              label:
                scope === 'all'
                  ? t('permission.authorization.allResources')
                  : t('permission.authorization.scopes.specific'),
            }))}
          />
        </Form.Item>
        {resourceScope === 'specific' ? (
          <Form.Item
            name="resourceIds"
            label={t('permission.authorization.resources')}
            rules={[
              {
                required: true,
                type: 'array',
                min: 1,
                message: t('permission.authorization.resourceRequired'),
              },
            ]}
          >
            <Select
              mode="multiple"
              options={resources.map((r) => ({ value: r.resourceId, label: r.name }))}
              showSearch={{ optionFilterProp: 'label' }}
            />
          </Form.Item>
        ) : null}
        <Form.Item name="actionScope" label={t('permission.authorization.operationScope')}>
          <Radio.Group
            options={(['all', 'specific'] as const).map((scope) => ({
              value: scope,
              label:
                scope === 'all'
                  ? t('permission.authorization.allActions')
                  : t('permission.authorization.scopes.specific'),
            }))}
          />
        </Form.Item>
        {actionScope === 'specific' ? (
          <Form.Item
            name="actions"
            label={t('permission.authorization.actions')}
            rules={[
              {
                required: true,
                type: 'array',
                min: 1,
                message: t('permission.authorization.actionsRequired'),
              },
            ]}
          >
            <Select mode="multiple" options={actionOptions} />
          </Form.Item>
        ) : null}
        <Divider titlePlacement="start" plain>
          {t('permission.authorization.restrictions')}
        </Divider>
        <RestrictionFields />
        <Form.Item
          name="description"
          label={t('permission.authorization.description')}
          style={{ marginBottom: 0 }}
        >
          <Input maxLength={permissionLimits.descriptionMax} />
        </Form.Item>
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
