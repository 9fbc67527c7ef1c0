import { Alert, Button, Card, Flex, Form, Input, List, Select, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { camel } from '../../lib/camel.ts';
import { UserPicker } from '../org/user-picker.tsx';
import type { AccessCheck, AppOption } from './permission-types.ts';
import { useAppResources } from './use-permission-data.ts';

interface CheckValues {
  userId?: string | null;
  appId?: string;
  resourceId?: string;
  action?: string;
  ip?: string;
}

type Rule = AccessCheck['matched'][number];

/** How a rule reached the person, in words. */
function useVia() {
  const { t } = useTranslation();
  return ({ via }: Rule) =>
    via.type === 'user'
      ? t('permission.check.via.user')
      : via.type === 'role'
        ? t('permission.check.via.role', { name: via.name })
        : via.through && via.through.id !== via.id
          ? t('permission.check.via.departmentThrough', { name: via.name, through: via.through.name })
          : t('permission.check.via.department', { name: via.name });
}

function RuleList({ rules, title }: { rules: Rule[]; title: string }) {
  const { t } = useTranslation();
  const via = useVia();
  return (
    <List
      size="small"
      header={<strong>{title}</strong>}
      locale={{ emptyText: t('permission.check.none') }}
      dataSource={rules}
      rowKey={(rule) => `${rule.authorizationId}:${rule.via.type}:${rule.via.id}`}
      renderItem={(rule) => (
        <List.Item>
          <Flex wrap gap={6} align="center">
            <Tag color={rule.effect === 'allow' ? 'green' : 'red'}>
              {t(`permission.authorization.effects.${rule.effect}`)}
            </Tag>
            <span>{via(rule)}</span>
            {rule.description ? <Typography.Text type="secondary">{rule.description}</Typography.Text> : null}
            {rule.applied ? (
              <Tag>{t('permission.check.applied')}</Tag>
            ) : (
              <Tag color="orange">
                {t('permission.check.notApplied')}
                {rule.miss ? `: ${t(`permission.check.misses.${camel(rule.miss)}`)}` : ''}
              </Tag>
            )}
          </Flex>
        </List.Item>
      )}
    />
  );
}

/** "Check access": whether a person may take an action on a resource, and why. */
export function CheckAccessTab({ apps }: { apps: AppOption[] }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [form] = Form.useForm<CheckValues>();
  const appId = Form.useWatch('appId', form);
  const resourceId = Form.useWatch('resourceId', form);
  const resources = useAppResources(appId);
  const actions = resources.find((r) => r.resourceId === resourceId)?.actions ?? [];
  const [result, setResult] = useState<AccessCheck>();
  const [busy, setBusy] = useState(false);

  const check = async (values: CheckValues) => {
    setBusy(true);
    try {
      setResult(
        await callApi('/api/v1/manage/permission/check', {
          userId: values.userId ?? '',
          resourceId: values.resourceId ?? '',
          action: values.action ?? '',
          ip: values.ip?.trim() || undefined,
        }),
      );
    } catch {
      setResult(undefined);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Flex vertical gap={16}>
      <Typography.Text type="secondary">{t('permission.check.intro')}</Typography.Text>
      <Form<CheckValues> form={form} layout="vertical" name="check" onFinish={(values) => void check(values)}>
        <Flex gap={12} wrap align="flex-end">
          <Form.Item
            name="userId"
            label={t('permission.check.person')}
            rules={[{ required: true, message: t('permission.check.personRequired') }]}
            style={{ width: 240 }}
          >
            <UserPicker />
          </Form.Item>
          <Form.Item
            name="appId"
            label={t('permission.common.app')}
            rules={[{ required: true, message: t('permission.common.chooseApp') }]}
            style={{ width: 200 }}
          >
            <Select
              options={apps}
              showSearch={{ optionFilterProp: 'label' }}
              onChange={() => form.setFieldsValue({ resourceId: undefined, action: undefined })}
            />
          </Form.Item>
          <Form.Item
            name="resourceId"
            label={t('permission.check.resource')}
            rules={[{ required: true, message: t('permission.check.resourceRequired') }]}
            style={{ width: 200 }}
          >
            <Select
              options={resources.map((r) => ({ value: r.resourceId, label: r.name }))}
              showSearch={{ optionFilterProp: 'label' }}
              onChange={() => form.setFieldsValue({ action: undefined })}
            />
          </Form.Item>
          <Form.Item
            name="action"
            label={t('permission.check.action')}
            rules={[{ required: true, message: t('permission.check.actionRequired') }]}
            style={{ width: 150 }}
          >
            <Select options={actions.map((a) => ({ value: a, label: a }))} />
          </Form.Item>
          <Form.Item name="ip" label={t('permission.check.ip')} style={{ width: 180 }}>
            <Input placeholder={t('permission.check.ipPlaceholder')} maxLength={64} />
          </Form.Item>
          <Form.Item>
            <Button type="primary" htmlType="submit" loading={busy}>
              {t('permission.check.run')}
            </Button>
          </Form.Item>
        </Flex>
      </Form>
      {result ? (
        <Card size="small" data-testid="check-result">
          <Space direction="vertical" style={{ width: '100%' }}>
            <Alert
              type={result.allowed ? 'success' : 'error'}
              showIcon
              message={result.allowed ? t('permission.check.allowed') : t('permission.check.denied')}
              description={t(`permission.check.reasons.${camel(result.reason)}`)}
            />
            <RuleList rules={result.deciding} title={t('permission.check.deciding')} />
            <RuleList rules={result.matched} title={t('permission.check.matched')} />
          </Space>
        </Card>
      ) : null}
    </Flex>
  );
}
