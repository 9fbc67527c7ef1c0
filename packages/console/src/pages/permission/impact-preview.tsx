import { Alert, Flex, List, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { AccessImpact } from './permission-types.ts';

const PAIRS_SHOWN = 6;

type Pair = AccessImpact['people'][number]['gained'][number];
const pairText = (pair: Pair) => `${pair.appName} · ${pair.resource} · ${pair.action}`;

function Pairs({
  pairs,
  count,
  color,
  label,
}: {
  pairs: Pair[];
  count: number;
  color: string;
  label: string;
}) {
  const { t } = useTranslation();
  if (count === 0) return null;
  const shown = pairs.slice(0, PAIRS_SHOWN);
  return (
    <Flex wrap gap={4} align="center">
      <Typography.Text type="secondary">{label}</Typography.Text>
      {shown.map((pair) => (
        <Tag key={pairText(pair)} color={color}>
          {pairText(pair)}
        </Tag>
      ))}
      {count > shown.length ? (
        <Typography.Text type="secondary">
          {t('permission.impact.more', { count: count - shown.length })}
        </Typography.Text>
      ) : null}
    </Flex>
  );
}

/** Who gains and who loses which access with a change, before it is saved. */
export function ImpactPreview({ impact }: { impact: AccessImpact }) {
  const { t } = useTranslation();
  const changed = impact.gaining + impact.losing > 0;
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="impact">
      <Typography.Title level={5} style={{ margin: 0 }}>
        {t('permission.impact.title')}
      </Typography.Title>
      <Flex wrap gap={8}>
        <Tag>{t('permission.impact.examined', { count: impact.examined })}</Tag>
        <Tag color="green">{t('permission.impact.gaining', { count: impact.gaining })}</Tag>
        <Tag color="red">{t('permission.impact.losing', { count: impact.losing })}</Tag>
      </Flex>
      {changed ? (
        <List
          size="small"
          bordered
          dataSource={impact.people}
          rowKey={(person) => person.userId}
          style={{ maxHeight: 280, overflowY: 'auto' }}
          renderItem={(person) => (
            <List.Item>
              <Space direction="vertical" size={2} style={{ width: '100%' }}>
                <strong>{person.name ? `${person.name} (${person.username})` : person.username}</strong>
                <Pairs
                  pairs={person.gained}
                  count={person.gainedCount}
                  color="green"
                  label={t('permission.impact.gained')}
                />
                <Pairs
                  pairs={person.lost}
                  count={person.lostCount}
                  color="red"
                  label={t('permission.impact.lost')}
                />
              </Space>
            </List.Item>
          )}
        />
      ) : (
        <Alert type="info" showIcon message={t('permission.impact.nothing')} />
      )}
      {impact.truncated ? (
        <Typography.Text type="secondary">{t('permission.impact.truncated')}</Typography.Text>
      ) : null}
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('permission.impact.possible')}
      </Typography.Text>
    </Space>
  );
}
