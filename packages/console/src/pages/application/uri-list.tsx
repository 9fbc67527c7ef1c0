import { MinusCircleOutlined, PlusOutlined } from '@ant-design/icons';
import { appLimits } from '@tessera/contract/constants';
import { Button, Flex, Form, Input } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { redirectUriRule } from './app-rules.ts';

/**
 * A list of exact callback addresses (login callback or logout URLs), each checked as the server
 * checks it (`redirectUriProblem`) and against the entries above it.
 */
export function UriList({ name, label, extra }: { name: string; label: ReactNode; extra?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <Form.Item label={label} extra={extra} required={false}>
      <Form.List name={name}>
        {(fields, { add, remove }) => (
          <Flex vertical gap={8} data-testid={`uris-${name}`}>
            {fields.map((field, index) => (
              <Flex key={field.key} gap={8} align="flex-start">
                <Form.Item
                  name={field.name}
                  noStyle={false}
                  style={{ flex: 1, marginBottom: 0 }}
                  validateTrigger={['onChange', 'onBlur']}
                  rules={[redirectUriRule(t, name, index)]}
                >
                  <Input
                    placeholder={t('apps.protocol.uriPlaceholder')}
                    aria-label={`${typeof label === 'string' ? label : name} ${index + 1}`}
                    inputMode="url"
                    spellCheck={false}
                  />
                </Form.Item>
                <Button
                  type="text"
                  icon={<MinusCircleOutlined />}
                  aria-label={t('apps.protocol.removeUri')}
                  title={t('apps.protocol.removeUri')}
                  onClick={() => remove(field.name)}
                />
              </Flex>
            ))}
            {fields.length < appLimits.urisMax ? (
              <Button
                type="dashed"
                icon={<PlusOutlined />}
                onClick={() => add('')}
                style={{ alignSelf: 'flex-start' }}
              >
                {t('apps.protocol.addUri')}
              </Button>
            ) : null}
          </Flex>
        )}
      </Form.List>
    </Form.Item>
  );
}
