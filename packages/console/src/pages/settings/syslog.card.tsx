import ReloadOutlined from '@ant-design/icons/ReloadOutlined';
import { type SyslogProtocol, syslogLimits, syslogProtocols } from '@tessera/contract/constants';
import {
  Alert,
  Button,
  Card,
  Descriptions,
  Flex,
  Form,
  Grid,
  Input,
  InputNumber,
  Radio,
  Skeleton,
  Switch,
  Typography,
} from 'antd';
import { useCallback, useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { formatDate } from '../../lib/format/date.ts';
import { useFormSubmit } from '../../lib/use-form-submit.ts';
import { useLoad } from '../../lib/use-load.ts';
import { showSafetyFieldErrors } from '../safety/server-fields.ts';

type Settings = ApiResponse<'/api/v1/manage/company/syslog/conf'>;

interface Values {
  enabled: boolean;
  protocol: SyslogProtocol;
  host: string;
  port: number;
  tag: string;
  caPem: string;
}

const FIELDS = ['enabled', 'protocol', 'host', 'port', 'tag', 'caPem'] as const;
const defaultPort: Record<SyslogProtocol, number> = { udp: 514, tcp: 514, tls: 6514 };

/** Company settings: where the company's events are forwarded (spec §3), and how delivery goes. */
export function SyslogCard() {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const conf = useLoad(useCallback(() => callApi('/api/v1/manage/company/syslog/conf'), [callApi]));
  const status = useLoad(useCallback(() => callApi('/api/v1/manage/company/syslog/status'), [callApi]));
  return (
    <Card title={t('settings.syslog.title')} data-testid="syslog-card">
      <Typography.Paragraph type="secondary">{t('settings.syslog.intro')}</Typography.Paragraph>
      {conf.data ? (
        <SyslogForm
          settings={conf.data}
          onSaved={(saved) => {
            conf.setData(saved);
            status.reload();
          }}
        />
      ) : (
        <Skeleton active loading={conf.loading} paragraph={{ rows: 5 }} />
      )}
      {status.data?.configured ? (
        <DeliveryStatus status={status.data} loading={status.loading} onRefresh={status.reload} />
      ) : null}
    </Card>
  );
}

function SyslogForm({ settings, onSaved }: { settings: Settings; onSaved(settings: Settings): void }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const [form] = Form.useForm<Values>();
  const narrow = !(Grid.useBreakpoint().md ?? true);
  const protocol = Form.useWatch('protocol', form) ?? settings.protocol;
  const initial: Values = { ...settings, caPem: settings.caPem ?? '' };
  useEffect(() => form.setFieldsValue({ ...settings, caPem: settings.caPem ?? '' }), [form, settings]);
  const { saving, submit } = useFormSubmit(
    form,
    async (values: Values) => {
      onSaved(await callApi('/api/v1/manage/company/syslog/update', values));
      void message.success(t('settings.syslog.saved'));
    },
    (error) => showSafetyFieldErrors(form, error, FIELDS),
  );
  return (
    <Form<Values>
      form={form}
      layout={narrow ? 'vertical' : 'horizontal'}
      labelCol={narrow ? undefined : { flex: '160px' }}
      labelWrap
      // Grows from nothing: a long hint under a field wraps instead of pushing the field under its label.
      wrapperCol={narrow ? undefined : { flex: '1 1 0' }}
      style={{ maxWidth: 760 }}
      initialValues={initial}
      onFinish={submit}
      disabled={saving}
      data-testid="syslog-form"
    >
      <Form.Item name="enabled" label={t('settings.syslog.enabled')} valuePropName="checked">
        <Switch checkedChildren={t('settings.syslog.on')} unCheckedChildren={t('settings.syslog.off')} />
      </Form.Item>
      <Form.Item name="protocol" label={t('settings.syslog.protocol')}>
        <Radio.Group
          optionType="button"
          options={syslogProtocols.map((value) => ({
            value,
            label: t(`settings.syslog.protocols.${value}`),
          }))}
          onChange={(event) => {
            const port = form.getFieldValue('port');
            if (Object.values(defaultPort).includes(port))
              form.setFieldValue('port', defaultPort[event.target.value as SyslogProtocol]);
          }}
        />
      </Form.Item>
      <Form.Item
        name="host"
        label={t('settings.syslog.host')}
        extra={t('settings.syslog.hostHint')}
        rules={[{ required: true, whitespace: true, message: t('settings.syslog.hostRequired') }]}
      >
        <Input maxLength={syslogLimits.hostMax} placeholder="siem.example.com" />
      </Form.Item>
      <Form.Item name="port" label={t('settings.syslog.port')} rules={[{ required: true }]}>
        <InputNumber min={1} max={65535} precision={0} style={{ width: 140 }} />
      </Form.Item>
      <Form.Item
        name="tag"
        label={t('settings.syslog.tag')}
        extra={t('settings.syslog.tagHint')}
        rules={[{ pattern: syslogLimits.tagPattern, message: t('settings.syslog.tagInvalid') }]}
      >
        <Input maxLength={syslogLimits.tagMax} style={{ maxWidth: 280 }} />
      </Form.Item>
      {protocol === 'tls' ? (
        <Form.Item name="caPem" label={t('settings.syslog.ca')} extra={t('settings.syslog.caHint')}>
          <Input.TextArea
            rows={4}
            placeholder="-----BEGIN CERTIFICATE-----"
            style={{ fontFamily: 'monospace' }}
          />
        </Form.Item>
      ) : null}
      <Form.Item label={null} colon={false} style={{ marginBottom: 0 }}>
        <Button type="primary" htmlType="submit" loading={saving}>
          {t('settings.syslog.save')}
        </Button>
      </Form.Item>
    </Form>
  );
}

function DeliveryStatus({
  status,
  loading,
  onRefresh,
}: {
  status: ApiResponse<'/api/v1/manage/company/syslog/status'>;
  loading: boolean;
  onRefresh(): void;
}) {
  const { t } = useTranslation();
  const when = (time: string | null) => (time ? formatDate(time) : t('settings.syslog.never'));
  return (
    <Flex vertical gap={12} style={{ marginTop: 24, maxWidth: 760 }}>
      <Flex justify="space-between" align="center">
        <Typography.Title level={5} style={{ margin: 0 }}>
          {t('settings.syslog.status')}
        </Typography.Title>
        <Button size="small" icon={<ReloadOutlined />} loading={loading} onClick={onRefresh}>
          {t('settings.syslog.refresh')}
        </Button>
      </Flex>
      <Descriptions
        bordered
        size="small"
        column={{ xs: 1, md: 2 }}
        data-testid="syslog-status"
        items={[
          { key: 'upTo', label: t('settings.syslog.deliveredUpTo'), children: when(status.deliveredUpTo) },
          { key: 'at', label: t('settings.syslog.deliveredAt'), children: when(status.deliveredAt) },
          { key: 'count', label: t('settings.syslog.deliveredCount'), children: status.deliveredCount },
          { key: 'backlog', label: t('settings.syslog.backlog'), children: status.backlog },
        ]}
      />
      {status.lastError ? (
        <Alert
          type="warning"
          showIcon
          message={`${t('settings.syslog.lastError')} (${when(status.lastErrorAt)})`}
          description={status.lastError}
        />
      ) : null}
    </Flex>
  );
}
