import { Col, Flex, Row } from 'antd';
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { useConsole } from '../../app/console-context.ts';
import { BackButton, DetailMissing } from '../../components/detail-nav.tsx';
import { useLoad } from '../../lib/use-load.ts';
import { UserDevicesCard } from '../devices/user-devices.card.tsx';
import { UserAccountCard } from './user-account.card.tsx';
import { UserDepartmentsCard } from './user-departments.card.tsx';
import { UserHeaderCard } from './user-header.card.tsx';
import { UserMfaCard } from './user-mfa.card.tsx';
import { UserProfileCard } from './user-profile.card.tsx';
import { UserSignInsCard } from './user-sign-ins.card.tsx';

/** /org/user-detail?id=… (hidden; highlights the user list): one user of the company. */
export function UserDetailPage() {
  const [params] = useSearchParams();
  const userId = params.get('id')?.trim() ?? '';
  if (!userId) {
    return <UserMissing status="info" />;
  }
  return <UserDetail key={userId} userId={userId} />;
}

/** No such user (no id, or none the company has), with the way back to the list. */
function UserMissing({ status, loading }: { status: 'info' | '404'; loading?: boolean }) {
  const { t } = useTranslation();
  return (
    <DetailMissing
      loading={loading}
      status={status}
      title={t('org.detail.missing')}
      backTo="/org/user"
      backLabel={t('org.detail.backToList')}
    />
  );
}

/** The user list as it was when the detail was opened from it (its filters are in its query). */
function listPathOf(state: unknown): string {
  const search = (state as { listSearch?: unknown } | null)?.listSearch;
  return typeof search === 'string' && search ? `/org/user?${search}` : '/org/user';
}

function UserDetail({ userId }: { userId: string }) {
  const { t } = useTranslation();
  const { callApi, variant } = useConsole();
  // Device management is in the full route set only (spec §2).
  const fullSet = variant === 'dev';
  const navigate = useNavigate();
  const listPath = listPathOf(useLocation().state);
  const load = useCallback(() => callApi('/api/v1/manage/user/detail', { userId }), [callApi, userId]);
  const { data: user, setData: setUser, loading } = useLoad(load);
  // A change that can come back in the sign-in list (status) reloads it.
  const [signInsVersion, setSignInsVersion] = useState(0);

  if (!user) return <UserMissing status="404" loading={loading} />;

  return (
    <Flex vertical gap={16} style={{ maxWidth: 1400 }}>
      <BackButton to={listPath}>{t('org.detail.backToList')}</BackButton>
      <UserHeaderCard
        user={user}
        onChange={(changed) => {
          setUser(changed);
          setSignInsVersion((v) => v + 1);
        }}
        onDeleted={() => navigate(listPath, { replace: true })}
      />
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={14}>
          <Flex vertical gap={16}>
            <UserProfileCard user={user} onChange={setUser} />
            <UserDepartmentsCard user={user} onChange={setUser} />
          </Flex>
        </Col>
        <Col xs={24} xl={10}>
          <Flex vertical gap={16}>
            <UserAccountCard user={user} />
            <UserMfaCard user={user} />
            {fullSet && <UserDevicesCard userId={user.userId} />}
          </Flex>
        </Col>
      </Row>
      <UserSignInsCard key={signInsVersion} userId={user.userId} />
    </Flex>
  );
}
