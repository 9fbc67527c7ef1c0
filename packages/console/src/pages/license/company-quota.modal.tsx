import { QUANTITY_MAX, type QuantityModule, quantityModules } from '@tessera/contract/constants';
import { Checkbox, Form, InputNumber, Modal, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { formatThousands } from '../../lib/format/number.ts';
import { useDangerConfirm } from '../../lib/use-danger-confirm.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { belowUsage, type CompanyQuotas, licenseModuleLabel, quotaOf } from './license-view.ts';

type QuotaValues = Record<QuantityModule, { unlimited: boolean; quota: number | null }>;

const valuesOf = (company: CompanyQuotas): QuotaValues =>
  Object.fromEntries(
    quantityModules.map((module) => {
      const { quota } = quotaOf(company, module);
      return [module, { unlimited: quota === null, quota }];
    }),
  ) as QuotaValues;

/**
 * Sets a company's quotas: a number for each counted function, or no limit beyond the licence.
 * A quota below what the company already uses is asked about first (nobody is removed; new ones
 * are refused until usage is below it).
 */
export function CompanyQuotaModal({
  company,
  onClose,
  onSaved,
}: {
  /** The company being edited; the dialog is closed without one. */
  company: CompanyQuotas | undefined;
  onClose(): void;
  onSaved(company: CompanyQuotas): void;
}) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const confirm = useDangerConfirm();
  const [form] = Form.useForm<QuotaValues>();

  useEffect(() => {
    if (company) form.setFieldsValue(valuesOf(company));
  }, [company, form]);

  const { saving, submit } = useFormSubmit(
    form,
    company &&
      (async (values) => {
        const quotas = Object.fromEntries(
          quantityModules.map((module) => [
            module,
            values[module].unlimited ? null : (values[module].quota ?? null),
          ]),
        ) as Record<QuantityModule, number | null>;
        const below = belowUsage(company, quotas);
        if (below.length) {
          const go = await confirm({
            title: t('license.quotas.belowTitle'),
            content: [
              ...below.map(({ module, quota, used }) =>
                t('license.quotas.belowLine', {
                  module: t(licenseModuleLabel[module]),
                  used: formatThousands(used),
                  quota: formatThousands(quota),
                }),
              ),
              t('license.quotas.belowEffect'),
            ].join(' '),
            okText: t('license.quotas.belowOk'),
          });
          if (!go) return;
        }
        const saved = await callApi('/api/v1/manage/license/quota/update', {
          companyId: company.companyId,
          quotas,
          confirmBelowUsage: below.length > 0,
        });
        void message.success(t('license.quotas.saved', { company: saved.name }));
        onSaved(saved);
      }),
  );

  return (
    <Modal
      open={company !== undefined}
      title={company ? t('license.quotas.modalTitle', { company: company.name }) : undefined}
      okText={t('license.quotas.save')}
      cancelText={t('common.cancel')}
      confirmLoading={saving}
      onOk={submit}
      onCancel={onClose}
      forceRender
    >
      <Form<QuotaValues>
        form={form}
        layout="vertical"
        requiredMark={false}
        disabled={saving}
        onFinish={submit}
      >
        {quantityModules.map((module) => (
          <QuotaField key={module} module={module} used={company ? quotaOf(company, module).used : 0} />
        ))}
        <Typography.Text type="secondary">{t('license.quotas.modalHint')}</Typography.Text>
        {/* Enter in a field submits the form. */}
        <button type="submit" hidden tabIndex={-1} />
      </Form>
    </Modal>
  );
}

function QuotaField({ module, used }: { module: QuantityModule; used: number }) {
  const { t } = useTranslation();
  const unlimited = Form.useWatch([module, 'unlimited'], Form.useFormInstance()) as boolean | undefined;
  const label = t(licenseModuleLabel[module]);
  return (
    <Form.Item
      label={label}
      extra={t('license.quotas.inUse', { used: formatThousands(used) })}
      style={{ marginBottom: 16 }}
    >
      <Form.Item
        name={[module, 'quota']}
        noStyle
        rules={[{ required: !unlimited, message: t('license.quotas.quotaRequired', { label }) }]}
      >
        <InputNumber
          aria-label={label}
          min={0}
          max={QUANTITY_MAX}
          precision={0}
          disabled={unlimited}
          style={{ width: 180, marginRight: 16 }}
        />
      </Form.Item>
      <Form.Item name={[module, 'unlimited']} valuePropName="checked" noStyle>
        <Checkbox>{t('license.quotas.unlimited')}</Checkbox>
      </Form.Item>
    </Form.Item>
  );
}
