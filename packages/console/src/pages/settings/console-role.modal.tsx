import {
  type ConsoleAbility,
  type ConsoleGroup,
  consoleAbilities,
  consoleAbilityGroup,
  consoleGroups,
  permissionLimits,
} from '@tessera/contract/constants';
import { Checkbox, Flex, Form, Input, Modal, Radio, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';

export type ConsoleRole = ApiResponse<'/api/v1/manage/console-role/list'>['list'][number];
type Level = 'none' | 'read' | 'manage';

interface RoleValues {
  name: string;
  description?: string;
  groups: Record<ConsoleGroup, Level>;
  abilities: ConsoleAbility[];
}

const LEVELS: Level[] = ['none', 'read', 'manage'];

const valuesOf = (role: ConsoleRole | undefined): RoleValues => ({
  name: role?.name ?? '',
  description: role?.description ?? '',
  groups: Object.fromEntries(
    consoleGroups.map((group) => [group, role?.grants.groups[group] ?? 'none']),
  ) as Record<ConsoleGroup, Level>,
  abilities: role?.grants.abilities ?? [],
});

/** The grants a form's values stand for: the groups given, and the abilities their group does not already give. */
function grantsOf(values: RoleValues) {
  const groups: Partial<Record<ConsoleGroup, 'read' | 'manage'>> = {};
  for (const group of consoleGroups) {
    const level = values.groups[group];
    if (level !== 'none') groups[group] = level;
  }
  const abilities = (values.abilities ?? []).filter(
    (ability) => groups[consoleAbilityGroup[ability]] !== 'manage',
  );
  return { groups, abilities };
}

/**
 * Creates or changes a custom console role (issue 35): its name, description, each permission
 * group (spec §6) not given, to read or to manage, and the finer abilities (a help desk that
 * reads users and resets their credentials).
 */
export function ConsoleRoleModal({
  open,
  role,
  onClose,
  onSaved,
}: {
  open: boolean;
  /** The role to change; none: a new one. */
  role?: ConsoleRole;
  onClose(): void;
  onSaved(): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<RoleValues>();

  useEffect(() => {
    if (open) form.setFieldsValue(valuesOf(role));
  }, [open, role, form]);

  const { saving, submit } = useFormSubmit(form, async (values) => {
    const body = {
      name: values.name.trim(),
      description: values.description?.trim() || undefined,
      grants: grantsOf(values),
    };
    const saved = role
      ? await callApi('/api/v1/manage/console-role/update', { roleId: role.roleId, ...body })
      : await callApi('/api/v1/manage/console-role/create', body);
    void message.success(
      t(role ? 'settings.consoleRoles.updated' : 'settings.consoleRoles.created', { name: saved.name }),
    );
    onSaved();
  });

  const title = role
    ? t('settings.consoleRoles.editTitle', { name: role.name })
    : t('settings.consoleRoles.add');
  return (
    <Modal
      open={open}
      title={title}
      okText={t('settings.save')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      width={720}
      destroyOnHidden
    >
      <Form<RoleValues>
        // Its own field ids: the company settings page has a "name" field of its own.
        name="console-role"
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={valuesOf(role)}
        disabled={saving}
        onFinish={submit}
      >
        <Form.Item
          name="name"
          label={t('settings.consoleRoles.name')}
          rules={[{ required: true, whitespace: true, message: t('settings.consoleRoles.nameRequired') }]}
        >
          <Input maxLength={permissionLimits.nameMax} autoComplete="off" />
        </Form.Item>
        <Form.Item name="description" label={t('settings.consoleRoles.description')}>
          <Input.TextArea maxLength={permissionLimits.descriptionMax} autoSize={{ minRows: 1, maxRows: 4 }} />
        </Form.Item>
        <Typography.Text strong>{t('settings.consoleRoles.grants')}</Typography.Text>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
          {t('settings.consoleRoles.grantsHint')}
        </Typography.Paragraph>
        <fieldset aria-label={t('settings.consoleRoles.grants')} style={{ border: 0, margin: 0, padding: 0 }}>
          {consoleGroups.map((group) => (
            <Flex
              key={group}
              wrap
              align="center"
              justify="space-between"
              gap={8}
              style={{ paddingBlock: 6, borderBottom: '1px solid rgba(5, 5, 5, 0.06)' }}
            >
              <span id={`console-group-${group}`}>{t(`settings.consoleRoles.group.${group}`)}</span>
              <Form.Item name={['groups', group]} noStyle>
                <Radio.Group
                  size="small"
                  optionType="button"
                  aria-labelledby={`console-group-${group}`}
                  options={LEVELS.map((level) => ({
                    value: level,
                    label: t(`settings.consoleRoles.level.${level}`),
                  }))}
                />
              </Form.Item>
            </Flex>
          ))}
        </fieldset>
        {/* Redrawn when a group changes: managing the whole group already gives its abilities. */}
        <Form.Item noStyle shouldUpdate>
          {({ getFieldValue }) => (
            <Form.Item
              name="abilities"
              label={t('settings.consoleRoles.abilities')}
              style={{ marginTop: 16 }}
            >
              <Checkbox.Group>
                <Flex vertical gap={4}>
                  {consoleAbilities.map((ability) => (
                    <Checkbox
                      key={ability}
                      value={ability}
                      disabled={getFieldValue(['groups', consoleAbilityGroup[ability]]) === 'manage'}
                    >
                      {t(`settings.consoleRoles.ability.${ability}`)}
                    </Checkbox>
                  ))}
                </Flex>
              </Checkbox.Group>
            </Form.Item>
          )}
        </Form.Item>
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}
