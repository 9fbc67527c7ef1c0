import { MinusCircleOutlined, PlusOutlined } from '@ant-design/icons';
import { samlAttributeNameFormats, samlAttributeSources, samlLimits } from '@tessera/contract/constants';
import { Button, Checkbox, Flex, Form, Input, InputNumber, Select, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDate } from '../../lib/format/index.ts';
import { camel } from './app-view.ts';
import { type SamlSettings, samlUrlRule } from './saml-view.ts';

const RemoveButton = ({ onClick }: { onClick(): void }) => {
  const { t } = useTranslation();
  return (
    <Button
      type="text"
      icon={<MinusCircleOutlined />}
      aria-label={t('apps.saml.remove')}
      title={t('apps.saml.remove')}
      onClick={onClick}
    />
  );
};

const AddButton = ({ label, onClick }: { label: string; onClick(): void }) => (
  <Button type="dashed" icon={<PlusOutlined />} onClick={onClick} style={{ alignSelf: 'flex-start' }}>
    {label}
  </Button>
);

/** The Assertion Consumer Service URLs: address, index, and which one is the default. */
export function AcsList({ narrow }: { narrow: boolean }) {
  const { t } = useTranslation();
  const form = Form.useFormInstance();
  return (
    <Form.List name="acs">
      {(fields, { add, remove }) => (
        <Flex vertical gap={8}>
          {fields.map((field) => (
            <Flex key={field.key} gap={8} align="flex-start" wrap={narrow}>
              <Form.Item
                name={[field.name, 'url']}
                rules={[samlUrlRule(t, true)]}
                style={{ flex: 1, marginBottom: 0, minWidth: 220 }}
              >
                <Input
                  placeholder="https://app.example.com/saml/acs"
                  aria-label={t('apps.saml.acsUrl')}
                  spellCheck={false}
                  inputMode="url"
                />
              </Form.Item>
              <Form.Item name={[field.name, 'index']} style={{ marginBottom: 0 }}>
                <InputNumber
                  min={0}
                  max={samlLimits.acsIndexMax}
                  precision={0}
                  aria-label={t('apps.saml.acsIndex')}
                  addonBefore={narrow ? undefined : t('apps.saml.acsIndex')}
                  style={{ width: narrow ? 90 : 130 }}
                />
              </Form.Item>
              <Form.Item name={[field.name, 'isDefault']} valuePropName="checked" style={{ marginBottom: 0 }}>
                <Checkbox
                  style={{ whiteSpace: 'nowrap' }}
                  onChange={(event) => {
                    // One default: checking one clears the others.
                    if (!event.target.checked) return;
                    const rows = (form.getFieldValue('acs') ?? []) as { isDefault?: boolean }[];
                    form.setFieldValue(
                      'acs',
                      rows.map((row, position) => ({ ...row, isDefault: position === field.name })),
                    );
                  }}
                >
                  {t('apps.saml.acsDefault')}
                </Checkbox>
              </Form.Item>
              {fields.length > 1 ? <RemoveButton onClick={() => remove(field.name)} /> : null}
            </Flex>
          ))}
          {fields.length < samlLimits.acsMax ? (
            <AddButton
              label={t('apps.saml.addAcs')}
              onClick={() => {
                const rows = (form.getFieldValue('acs') ?? []) as { index?: number }[];
                const next = rows.reduce((max, row) => Math.max(max, Number(row.index ?? 0) + 1), 0);
                add({ url: '', index: next, isDefault: false });
              }}
            />
          ) : null}
        </Flex>
      )}
    </Form.List>
  );
}

/** The service provider's request signing certificates as PEM, each with what it is. */
export function CertificateList({ infos }: { infos: SamlSettings['signingCertificates'] }) {
  const { t } = useTranslation();
  return (
    <Form.List name="signingCertificates">
      {(fields, { add, remove }) => (
        <Flex vertical gap={8}>
          {fields.map((field, position) => {
            const info = infos[position];
            return (
              <Flex key={field.key} gap={8} align="flex-start">
                <Flex vertical style={{ flex: 1, minWidth: 0 }}>
                  <Form.Item
                    name={field.name}
                    rules={[{ required: true, whitespace: true, message: t('apps.saml.fieldRequired') }]}
                    style={{ marginBottom: 0 }}
                  >
                    <Input.TextArea
                      autoSize={{ minRows: 2, maxRows: 6 }}
                      spellCheck={false}
                      placeholder={t('apps.saml.certificatePlaceholder')}
                      aria-label={t('apps.saml.signingCertificates')}
                      style={{ fontFamily: 'monospace', fontSize: 12 }}
                    />
                  </Form.Item>
                  {info ? (
                    <Typography.Text type="secondary" style={{ fontSize: 12, overflowWrap: 'anywhere' }}>
                      {t('apps.saml.certificateInfo', {
                        subject: info.subject,
                        notAfter: formatDate(info.notAfter * 1000, 'YYYY-MM-DD'),
                      })}
                    </Typography.Text>
                  ) : null}
                </Flex>
                <RemoveButton onClick={() => remove(field.name)} />
              </Flex>
            );
          })}
          {fields.length < samlLimits.certificatesMax ? (
            <AddButton label={t('apps.saml.addCertificate')} onClick={() => add('')} />
          ) : null}
        </Flex>
      )}
    </Form.List>
  );
}

/** The attribute mapping: the name the service provider reads and where the value comes from. */
export function AttributeList({
  narrow,
  valueHints = {},
}: {
  narrow: boolean;
  /** Fixed values the catalogue left to the administrator, by attribute name: their pattern. */
  valueHints?: Readonly<Record<string, string>>;
}) {
  const { t } = useTranslation();
  const form = Form.useFormInstance();
  const rows = (Form.useWatch('attributes', form) ?? []) as {
    name?: string;
    source?: string;
    value?: string;
  }[];
  return (
    <Form.List name="attributes">
      {(fields, { add, remove }) => (
        <Flex vertical gap={8}>
          {fields.map((field) => (
            <Flex key={field.key} gap={8} align="flex-start" wrap>
              <Form.Item
                name={[field.name, 'name']}
                rules={[
                  { required: true, whitespace: true, message: t('apps.saml.fieldRequired') },
                  { max: samlLimits.attributeNameMax },
                ]}
                style={{ flex: 2, marginBottom: 0, minWidth: narrow ? '100%' : 140 }}
              >
                <Input
                  placeholder={t('apps.saml.attributeName')}
                  aria-label={t('apps.saml.attributeName')}
                  spellCheck={false}
                />
              </Form.Item>
              <Form.Item name={[field.name, 'nameFormat']} style={{ marginBottom: 0, width: 110 }}>
                <Select
                  aria-label={t('apps.saml.attributeNameFormat')}
                  options={samlAttributeNameFormats.map((value) => ({
                    value,
                    label: t(`apps.saml.nameFormatName.${value}`),
                  }))}
                />
              </Form.Item>
              <Form.Item name={[field.name, 'source']} style={{ marginBottom: 0, width: 160 }}>
                <Select
                  aria-label={t('apps.saml.attributeSource')}
                  options={samlAttributeSources.map((value) => ({
                    value,
                    label: t(`apps.saml.sourceName.${camel(value)}`),
                  }))}
                />
              </Form.Item>
              {rows[field.name]?.source === 'fixed' ? (
                <FixedValue
                  field={field.name}
                  hint={valueHints[rows[field.name]?.name ?? '']}
                  empty={!rows[field.name]?.value?.trim()}
                />
              ) : null}
              <RemoveButton onClick={() => remove(field.name)} />
            </Flex>
          ))}
          {fields.length < samlLimits.attributesMax ? (
            <AddButton
              label={t('apps.saml.addAttribute')}
              onClick={() => add({ name: '', nameFormat: 'basic', source: 'email', value: '' })}
            />
          ) : null}
        </Flex>
      )}
    </Form.List>
  );
}

/** A fixed attribute value; one the catalogue left to fill is marked with its pattern until filled. */
function FixedValue({ field, hint, empty }: { field: number; hint: string | undefined; empty: boolean }) {
  const { t } = useTranslation();
  return (
    <Form.Item
      name={[field, 'value']}
      rules={[
        { required: true, whitespace: true, message: t('apps.saml.fieldRequired') },
        { max: samlLimits.fixedValueMax },
      ]}
      extra={hint ? t('apps.saml.valueToFill', { hint }) : undefined}
      style={{ flex: 1, marginBottom: 0, minWidth: 160 }}
    >
      <Input
        placeholder={hint ?? t('apps.saml.attributeValue')}
        aria-label={t('apps.saml.attributeValue')}
        status={hint && empty ? 'warning' : undefined}
        spellCheck={false}
      />
    </Form.Item>
  );
}
