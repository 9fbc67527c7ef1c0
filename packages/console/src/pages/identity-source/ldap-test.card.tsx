import { Alert, Button, Descriptions, Flex, Form, type FormInstance, Input, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, type ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import type { LdapValues } from './ldap-source.page.tsx';
import { FormSection } from './source-form.tsx';

type ConnectionOutcome = ApiResponse<'/api/v1/manage/identity-source/ldap/test-connection'>;
type UserOutcome = ApiResponse<'/api/v1/manage/identity-source/ldap/test-user'>;

/**
 * "Test connection" (bind, read the base DNs) and "Test user" (find and authenticate the test
 * user, show the attributes as they would be mapped) with the settings as typed; a failure shows
 * the server's precise reason. The test user's password is sent with the test only.
 */
export function LdapTestCard({ form, sourceId }: { form: FormInstance<LdapValues>; sourceId?: string }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const [password, setPassword] = useState('');
  const [running, setRunning] = useState<'connection' | 'user'>();
  const [connection, setConnection] = useState<ConnectionOutcome>();
  const [user, setUser] = useState<UserOutcome>();

  /** Marks the fields a refused test names (`settings.userFilter` is the form's `userFilter`). */
  const markFields = (error: unknown) => {
    if (!(error instanceof ApiError) || !error.fields?.length) return;
    form.setFields(
      error.fields
        .filter((item) => item.message !== '')
        .map(({ field, message }) => ({
          name: field.replace(/^settings\./, '') as never,
          errors: [message],
        })),
    );
  };

  const test = async (kind: 'connection' | 'user') => {
    const settings = form.getFieldsValue(true) as LdapValues;
    setRunning(kind);
    try {
      if (kind === 'connection') {
        setConnection(undefined);
        setConnection(
          await callApi('/api/v1/manage/identity-source/ldap/test-connection', { sourceId, settings }),
        );
      } else {
        setUser(undefined);
        setUser(
          await callApi('/api/v1/manage/identity-source/ldap/test-user', {
            sourceId,
            settings,
            testUsername: settings.testUsername,
            testPassword: password,
          }),
        );
      }
    } catch (error) {
      markFields(error);
    } finally {
      setRunning(undefined);
    }
  };

  const person = user?.ok ? user.person : null;
  return (
    <FormSection title={t('sources.ldap.test')}>
      <Flex vertical gap={12}>
        <div>
          <Button
            loading={running === 'connection'}
            onClick={() => void test('connection')}
            data-testid="test-connection"
          >
            {t('sources.ldap.testConnection')}
          </Button>
        </div>
        {connection ? (
          <Alert
            type={connection.ok ? 'success' : 'error'}
            showIcon
            message={connection.message}
            data-testid="connection-outcome"
          />
        ) : null}
        <Form.Item name="testUsername" label={t('sources.ldap.testUsername')} style={{ marginBottom: 0 }}>
          <Input autoComplete="off" />
        </Form.Item>
        <Form.Item
          label={t('sources.ldap.testPassword')}
          extra={t('sources.ldap.testPasswordHint')}
          style={{ marginBottom: 0 }}
        >
          <Space.Compact style={{ width: '100%' }}>
            <Input.Password
              value={password}
              onChange={(event) => setPassword(event.target.value)}
              autoComplete="new-password"
              aria-label={t('sources.ldap.testPassword')}
            />
            <Button loading={running === 'user'} onClick={() => void test('user')} data-testid="test-user">
              {t('sources.ldap.testUser')}
            </Button>
          </Space.Compact>
        </Form.Item>
        {user ? (
          <Alert
            type={user.ok ? 'success' : 'error'}
            showIcon
            data-testid="user-outcome"
            message={user.message}
            description={
              person ? (
                <Descriptions
                  size="small"
                  column={1}
                  items={(['username', 'name', 'email', 'phone', 'externalId', 'dn'] as const)
                    .map((key) => ({
                      key: String(key),
                      label: t(`sources.ldap.mapped.${key}`),
                      children: person[key] ?? '—',
                    }))
                    .concat([
                      {
                        key: 'departments',
                        label: t('sources.ldap.mapped.departments'),
                        children: person.departments.join(', ') || '—',
                      },
                      {
                        key: 'disabled',
                        label: t('sources.ldap.mapped.disabled'),
                        children: person.disabled ? t('sources.ldap.yes') : t('sources.ldap.no'),
                      },
                    ])}
                />
              ) : undefined
            }
          />
        ) : null}
      </Flex>
    </FormSection>
  );
}
