import {
  caLimits,
  defaultKeyStrength,
  type KeyAlgorithm,
  keyAlgorithms,
  keyStrengths,
} from '@tessera/contract/constants';
import { Form, Input, InputNumber, Radio, Select, Space, Tag } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { maxTrimmed, requiredText } from '../../lib/form-rules.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { showFieldErrors } from '../org/server-errors.ts';

export type CertificateAuthority = ApiResponse<'/api/v1/manage/ca/list'>['list'][number];
export type IssuedCertificate = ApiResponse<'/api/v1/manage/ca/certificate/list'>['list'][number];

/** The CA screen shows one CA's detail under its id in the address. */
export const CA_PARAM = 'caId';
export const caDetailPath = (caId: string) => `/safety-management/ca?${CA_PARAM}=${encodeURIComponent(caId)}`;

/** "RSA 2048", "ECC P-256", "SM2 SMP256". */
export function useKeyLabel() {
  const { t } = useTranslation();
  return ({ algorithm, strength }: { algorithm: KeyAlgorithm; strength: string }) =>
    `${t(`ca.algorithm.${algorithm}`)} ${strength}`;
}

const statusColor = { valid: 'green', revoked: 'red', expired: 'default' } as const;

export function CertificateStatusTag({ status }: { status: IssuedCertificate['status'] }) {
  const { t } = useTranslation();
  return (
    <Tag variant="filled" color={statusColor[status]} style={{ marginInlineEnd: 0 }}>
      {t(`ca.certificate.status.${status}`)}
    </Tag>
  );
}

/**
 * The key algorithm and its length (spec §5: RSA 2048/3072/4096, ECC P-256/P-384/P-521, SM2
 * SMP256), as two fields of the surrounding form; choosing an algorithm picks its default length.
 */
export function KeyFields({ algorithmName, strengthName }: { algorithmName: string; strengthName: string }) {
  const { t } = useTranslation();
  const form = Form.useFormInstance();
  const algorithm: KeyAlgorithm = Form.useWatch(algorithmName, form) ?? 'rsa';
  return (
    <>
      <Form.Item name={algorithmName} label={t('ca.create.algorithm')}>
        <Radio.Group
          optionType="button"
          options={keyAlgorithms.map((value) => ({ value, label: t(`ca.algorithm.${value}`) }))}
          onChange={(event) =>
            form.setFieldValue(strengthName, defaultKeyStrength[event.target.value as KeyAlgorithm])
          }
        />
      </Form.Item>
      <Form.Item name={strengthName} label={t('ca.create.strength')}>
        <Select
          aria-label={t('ca.create.strength')}
          style={{ maxWidth: 200 }}
          options={keyStrengths[algorithm].map((value) => ({ value, label: value }))}
        />
      </Form.Item>
    </>
  );
}

/** The name of a CA (created or imported): required, at most caLimits.nameMax characters. */
export function CaNameField() {
  const { t } = useTranslation();
  return (
    <Form.Item
      name="name"
      label={t('ca.create.name')}
      rules={[
        requiredText(t('ca.create.nameRequired')),
        maxTrimmed(caLimits.nameMax, t('ca.create.tooLong', { max: caLimits.nameMax })),
      ]}
    >
      <Input maxLength={caLimits.nameMax} autoComplete="off" />
    </Form.Item>
  );
}

/** A required whole number within `range`, with its unit after it (a validity in years or days). */
export function ValidityField({
  name,
  label,
  unit,
  range: { min, max },
  rangeMessage,
}: {
  name: string;
  label: string;
  unit: string;
  range: { min: number; max: number };
  rangeMessage: string;
}) {
  return (
    <Form.Item label={label} required style={{ marginBottom: 0 }}>
      <Space align="baseline">
        <Form.Item
          name={name}
          noStyle
          rules={[{ type: 'integer', min, max, required: true, message: rangeMessage }]}
        >
          <InputNumber min={min} max={max} precision={0} aria-label={label} />
        </Form.Item>
        <span>{unit}</span>
      </Space>
    </Form.Item>
  );
}

/**
 * The form of a CA dialog: emptied each time the dialog opens, saved through `save` while it is
 * open, the refused fields marked with the server's words.
 */
export function useDialogForm<Values>(
  open: boolean,
  save: (values: Values) => Promise<void>,
  fields: readonly string[] = [],
) {
  const [form] = Form.useForm<Values>();
  useEffect(() => {
    if (open) form.resetFields();
  }, [form, open]);
  const { saving, submit } = useFormSubmit(form, open ? save : undefined, (error) =>
    showFieldErrors(form, error, fields),
  );
  return { form, saving, submit };
}
