import { DeleteOutlined, KeyOutlined } from '@ant-design/icons';
import { type MfaType, RECOVERY_CODE_COUNT } from '@tessera/contract/constants';
import { Button, Card, Divider, Empty, Flex, Popconfirm, Skeleton, Tag, Typography } from 'antd';
import { Fragment, type ReactNode, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ApiResponse } from '../../api/http-client.ts';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { formatDate } from '../../lib/format/date.ts';
import { useLoad } from '../../lib/use-load.ts';
import { mfaTypeKey } from '../safety/safety-rules.ts';
import { BindKeyModal } from './bind-key.modal.tsx';
import type { OrgUser } from './org-types.ts';

type Factor = ApiResponse<'/api/v1/manage/mfa/admin/user'>['list'][number];

/**
 * The user's MFA factors (spec §4: bound or unbound; unbinding allowed) and the recovery codes
 * left. Unbinding one or all ends the user's sessions (the server does it; the note says so).
 */
export function UserMfaCard({ user }: { user: Pick<OrgUser, 'userId' | 'username' | 'name'> }) {
  const { t } = useTranslation();
  const { callApi } = useConsole();
  const { message } = useFeedback();
  const load = useCallback(
    () => callApi('/api/v1/manage/mfa/admin/user', { userId: user.userId }),
    [callApi, user.userId],
  );
  const { data, loading, reload } = useLoad(load);
  const [busy, setBusy] = useState(false);
  const [binding, setBinding] = useState(false);
  const factors = data?.list ?? [];

  const unbind = async (factorId?: string) => {
    setBusy(true);
    try {
      const { removed } = await callApi('/api/v1/manage/mfa/admin/user/del', {
        userId: user.userId,
        ...(factorId ? { factorId } : {}),
      });
      void message.success(t('org.mfa.unbound', { count: removed }));
    } catch {
      // Shown by the HTTP client; the list is reloaded either way.
    } finally {
      setBusy(false);
      reload();
    }
  };

  const typeName = (type: MfaType) => t(`org.mfa.type.${mfaTypeKey[type]}` as 'org.mfa.type.otp');
  const note = <div style={{ maxWidth: 300 }}>{t('org.mfa.unbindNote')}</div>;

  return (
    <Card
      title={t('org.detail.mfaTitle')}
      size="small"
      data-testid="user-mfa"
      extra={
        <Flex gap={8}>
          <Button size="small" icon={<KeyOutlined />} onClick={() => setBinding(true)} data-testid="bind-key">
            {t('org.mfa.bindKey')}
          </Button>
          {factors.length > 0 && (
            <Popconfirm
              title={t('org.mfa.unbindAllTitle', { user: user.name ?? user.username })}
              description={note}
              okText={t('org.mfa.unbindAll')}
              okButtonProps={{ danger: true }}
              cancelText={t('common.cancel')}
              onConfirm={() => unbind()}
            >
              <Button size="small" danger disabled={busy}>
                {t('org.mfa.unbindAll')}
              </Button>
            </Popconfirm>
          )}
        </Flex>
      }
    >
      <BindKeyModal
        user={user}
        open={binding}
        onClose={() => setBinding(false)}
        onBound={() => {
          setBinding(false);
          reload();
        }}
      />
      {!data ? (
        <Skeleton active loading={loading} paragraph={{ rows: 2 }} />
      ) : (
        <Flex vertical gap={8}>
          {factors.length === 0 ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('org.detail.mfaEmpty')} />
          ) : (
            factors.map((factor, index) => (
              <Fragment key={factor.factorId}>
                {index > 0 && <Divider style={{ margin: 0 }} />}
                <FactorRow factor={factor} typeName={typeName(factor.type)}>
                  <Popconfirm
                    title={t('org.mfa.unbindTitle', { name: factor.name || typeName(factor.type) })}
                    description={note}
                    okText={t('org.mfa.unbind')}
                    okButtonProps={{ danger: true }}
                    cancelText={t('common.cancel')}
                    onConfirm={() => unbind(factor.factorId)}
                  >
                    <Button
                      size="small"
                      type="text"
                      danger
                      icon={<DeleteOutlined />}
                      disabled={busy}
                      aria-label={t('org.mfa.unbindFor', { name: factor.name || typeName(factor.type) })}
                    >
                      {t('org.mfa.unbind')}
                    </Button>
                  </Popconfirm>
                </FactorRow>
              </Fragment>
            ))
          )}
          {(factors.length > 0 || data.recoveryCodesLeft > 0) && (
            <Typography.Text type="secondary" data-testid="recovery-codes-left">
              {t('org.mfa.recoveryLeft', { count: data.recoveryCodesLeft, total: RECOVERY_CODE_COUNT })}
            </Typography.Text>
          )}
        </Flex>
      )}
    </Card>
  );
}

function FactorRow({
  factor,
  typeName,
  children,
}: {
  factor: Factor;
  typeName: string;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const bound = factor.status === 'bound';
  return (
    <Flex justify="space-between" align="flex-start" gap={8} data-testid={`factor-${factor.factorId}`}>
      <Flex vertical gap={2} style={{ minWidth: 0 }}>
        <Flex wrap align="center" gap={6}>
          <Tag variant="filled" color="blue" style={{ marginInlineEnd: 0 }}>
            {typeName}
          </Tag>
          {factor.name && factor.name !== typeName && (
            <Typography.Text strong ellipsis={{ tooltip: factor.name }} style={{ maxWidth: 220 }}>
              {factor.name}
            </Typography.Text>
          )}
          <Tag variant="filled" color={bound ? 'green' : 'orange'} style={{ marginInlineEnd: 0 }}>
            {t(`org.mfa.status.${factor.status}`)}
          </Tag>
        </Flex>
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('org.mfa.boundAt', {
            time: factor.boundAt ? formatDate(factor.boundAt) : t('org.mfa.notBound'),
          })}
          {' · '}
          {t('org.mfa.lastUsedAt', {
            time: factor.lastUsedAt ? formatDate(factor.lastUsedAt) : t('org.mfa.neverUsed'),
          })}
        </Typography.Text>
      </Flex>
      {children}
    </Flex>
  );
}
