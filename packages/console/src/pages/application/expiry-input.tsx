import { Flex, Form, Input, Radio, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../components/data-table.tsx';
import { formatDate } from '../../lib/format/date.ts';

const pad = (value: number) => String(value).padStart(2, '0');

/** Epoch seconds as a `datetime-local` value in the browser's time zone. */
export function toLocalInput(seconds: number): string {
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A `datetime-local` value as epoch seconds, or undefined when it is not a time. */
export function fromLocalInput(value: string): number | undefined {
  if (!value) return undefined;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? undefined : Math.floor(time / 1000);
}

/**
 * An expiry: permanent (null) or a time (epoch seconds; NaN while the time is not chosen yet, so
 * the form's rule can ask for it). The browser's own date-time picker keeps the chunk small.
 */
export function ExpiryInput({
  id,
  value,
  onChange,
}: {
  id?: string;
  value?: number | null;
  onChange?(value: number | null): void;
}) {
  const { t } = useTranslation();
  const permanent = value === null || value === undefined;
  return (
    <Flex vertical gap={8}>
      <Radio.Group
        id={id}
        value={permanent ? 'permanent' : 'until'}
        onChange={(event) =>
          onChange?.(event.target.value === 'permanent' ? null : Math.floor(Date.now() / 1000) + 30 * 86_400)
        }
        options={[
          { value: 'permanent', label: t('apps.access.expiryPermanent') },
          { value: 'until', label: t('apps.access.expiryUntil') },
        ]}
      />
      {permanent ? null : (
        <Input
          type="datetime-local"
          aria-label={t('apps.access.expiry')}
          value={Number.isNaN(value) ? '' : toLocalInput(value)}
          min={toLocalInput(Math.floor(Date.now() / 1000))}
          onChange={(event) => onChange?.(fromLocalInput(event.target.value) ?? Number.NaN)}
          style={{ maxWidth: 260 }}
        />
      )}
    </Flex>
  );
}

/** The form rule of an expiry: a chosen time in the future, or permanent. */
const expiryRule = (t: (key: 'apps.access.expiryRequired' | 'apps.access.expiryPast') => string) => ({
  validator: async (_rule: unknown, value: number | null | undefined) => {
    if (value === null || value === undefined) return;
    if (Number.isNaN(value)) throw new Error(t('apps.access.expiryRequired'));
    if (value <= Date.now() / 1000) throw new Error(t('apps.access.expiryPast'));
  },
});

/** The `expiresAt` field of a form: permanent or a time in the future. */
export function ExpiryField() {
  const { t } = useTranslation();
  return (
    <Form.Item name="expiresAt" label={t('apps.access.expiry')} rules={[expiryRule(t)]}>
      <ExpiryInput />
    </Form.Item>
  );
}

/** The expiry column of a table: permanent or the time, with a red tag once it has passed. */
export const expiryColumn = <Row extends { expiresAt: number | null; expired: boolean }>(
  title: string,
): DataColumn<Row> => ({
  key: 'expiresAt',
  title,
  render: (row) => <ExpiryCell expiresAt={row.expiresAt} expired={row.expired} />,
});

function ExpiryCell({ expiresAt, expired }: { expiresAt: number | null; expired: boolean }) {
  const { t } = useTranslation();
  return (
    <Flex gap={6} align="center" wrap>
      <span style={{ whiteSpace: 'nowrap' }}>
        {expiresAt === null ? t('apps.access.permanent') : formatDate(expiresAt, 'YYYY-MM-DD HH:mm')}
      </span>
      {expired ? (
        <Tag color="red" bordered={false}>
          {t('apps.access.expired')}
        </Tag>
      ) : null}
    </Flex>
  );
}
