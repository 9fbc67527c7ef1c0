import ClockCircleOutlined from '@ant-design/icons/ClockCircleOutlined';
import { type LogView, logLimits } from '@tessera/contract/constants';
import { Button, Card, Flex, Form, InputNumber, Modal, Segmented } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { useLoad } from '../../lib/use-load.ts';
import { AdminLog } from './admin-log.tsx';
import { SignInLog } from './sign-in-log.tsx';

/**
 * /log/index: the sign-in log (every attempt) and the administration log (every change), over
 * the ranges of spec §9 or a custom one, filtered, paged and sorted on the server, exported.
 */
export function LogPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const view: LogView = params.get('view') === 'admin' ? 'admin' : 'signin';
  return (
    <Card>
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="center" wrap gap={8}>
          <Segmented<LogView>
            data-testid="log-view"
            value={view}
            onChange={(next) => setParams(next === 'admin' ? { view: next } : {}, { replace: true })}
            options={(['signin', 'admin'] as const).map((value) => ({
              value,
              label: t(`log.views.${value}`),
            }))}
          />
          <Retention />
        </Flex>
        {view === 'signin' ? <SignInLog /> : <AdminLog />}
      </Flex>
    </Card>
  );
}

/** How many days the company keeps its logs (a background job deletes older events). */
function Retention() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const { data, setData } = useLoad(useCallback(() => callApi('/api/v1/manage/log/settings'), [callApi]));
  const [open, setOpen] = useState(false);
  const [saving, setSaving] = useState(false);
  const [form] = Form.useForm<{ retentionDays: number }>();
  const save = async ({ retentionDays }: { retentionDays: number }) => {
    setSaving(true);
    try {
      setData(await callApi('/api/v1/manage/log/settings/update', { retentionDays }));
      void message.success(t('log.retention.saved'));
      setOpen(false);
    } catch {
      // Shown by the HTTP client; the dialog stays open with what was typed.
    } finally {
      setSaving(false);
    }
  };
  return (
    <>
      <Button
        icon={<ClockCircleOutlined />}
        data-testid="log-retention"
        onClick={() => {
          form.setFieldsValue({ retentionDays: data?.retentionDays ?? logLimits.retentionDays.default });
          setOpen(true);
        }}
      >
        {data ? t('log.retention.current', { days: data.retentionDays }) : t('log.retention.button')}
      </Button>
      <Modal
        open={open}
        title={t('log.retention.title')}
        okText={t('log.retention.save')}
        cancelText={t('log.retention.cancel')}
        confirmLoading={saving}
        onOk={() => form.submit()}
        onCancel={() => setOpen(false)}
        destroyOnHidden
      >
        <Form form={form} layout="vertical" onFinish={save}>
          <Form.Item
            name="retentionDays"
            label={t('log.retention.label')}
            extra={t('log.retention.hint')}
            rules={[
              {
                required: true,
                type: 'integer',
                min: logLimits.retentionDays.min,
                max: logLimits.retentionDays.max,
                message: t('log.retention.hint'),
              },
            ]}
          >
            <InputNumber
              min={logLimits.retentionDays.min}
              max={logLimits.retentionDays.max}
              precision={0}
              suffix={t('log.retention.days')}
              style={{ width: 200 }}
            />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
