import { UploadOutlined } from '@ant-design/icons';
import { Avatar, Button, Card, Flex, Space, Tag, Typography, Upload } from 'antd';
import { Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole, useSession } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import { ResetPasswordModal } from './lazy-parts.ts';
import type { OrgUser } from './org-types.ts';
import { photoAccept, photoProblem } from './photo-file.ts';
import { useUserActions } from './use-user-actions.tsx';
import { displayName, statusActions } from './user-status.ts';
import { UserStatusTag } from './user-status-tag.tsx';

/** Photo, names, status and the actions on the user. */
export function UserHeaderCard({
  user,
  onChange,
  onDeleted,
}: {
  user: OrgUser;
  onChange(user: OrgUser): void;
  onDeleted(): void;
}) {
  const { t } = useTranslation();
  const { username: me } = useSession();
  const actions = useUserActions();
  const [resetting, setResetting] = useState(false);
  const [busy, setBusy] = useState(false);
  const isSelf = user.username === me;
  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await work();
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card>
      <Flex wrap gap={24} align="center" justify="space-between">
        <Flex gap={16} align="center" style={{ minWidth: 0 }}>
          <UserPhoto user={user} onChange={onChange} />
          <Flex vertical gap={4} style={{ minWidth: 0 }}>
            <Typography.Title level={4} style={{ margin: 0, overflowWrap: 'anywhere' }}>
              {displayName(user)}
            </Typography.Title>
            <Space size={8} wrap>
              <Typography.Text type="secondary">{user.username}</Typography.Text>
              <UserStatusTag user={user} />
              {user.isOwner ? (
                <Tag color="gold" bordered={false}>
                  {t('org.users.owner')}
                </Tag>
              ) : null}
            </Space>
          </Flex>
        </Flex>
        <Space wrap size={8}>
          {statusActions(user, isSelf).map((action) => (
            <Button
              key={action}
              danger={action === 'disable' || action === 'lock'}
              disabled={busy}
              onClick={() =>
                run(async () => {
                  const changed = await actions.changeStatus(user, action);
                  if (changed) onChange(changed);
                })
              }
            >
              {t(`org.statusAction.${action}`)}
            </Button>
          ))}
          {user.managed ? (
            <Button disabled={busy} onClick={() => setResetting(true)}>
              {t('org.users.resetPassword')}
            </Button>
          ) : null}
          {user.managed && user.email ? (
            <>
              <Button disabled={busy} onClick={() => run(() => actions.sendSignInLink(user))}>
                {t('org.users.sendLink')}
              </Button>
              <Button disabled={busy} onClick={() => run(() => actions.sendAccountEmail(user))}>
                {t('org.detail.sendAccountEmail')}
              </Button>
            </>
          ) : null}
          {user.isOwner || isSelf ? null : (
            <Button
              danger
              disabled={busy}
              onClick={() =>
                run(async () => {
                  if (await actions.remove(user)) onDeleted();
                })
              }
            >
              {t('org.users.delete')}
            </Button>
          )}
        </Space>
      </Flex>
      {user.isOwner || isSelf ? (
        <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }}>
          {user.isOwner ? t('org.detail.protectedOwner') : t('org.detail.protectedSelf')}
        </Typography.Paragraph>
      ) : null}
      {resetting ? (
        <Suspense fallback={null}>
          <ResetPasswordModal
            user={user}
            onClose={() => setResetting(false)}
            onDone={(changed) => {
              setResetting(false);
              onChange(changed);
            }}
          />
        </Suspense>
      ) : null}
    </Card>
  );
}

/** The photo; a managed user's can be replaced (PNG, JPEG or WebP, at most 2 MiB). */
function UserPhoto({ user, onChange }: { user: OrgUser; onChange(user: OrgUser): void }) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { uploadFile } = useConsole();
  const [uploading, setUploading] = useState(false);
  const avatar = (
    <Avatar size={64} src={user.photo ?? undefined} alt={displayName(user)}>
      {displayName(user).slice(0, 1).toUpperCase()}
    </Avatar>
  );
  if (!user.managed) return avatar;
  return (
    <Flex vertical align="center" gap={4}>
      {avatar}
      <Upload
        accept={photoAccept}
        showUploadList={false}
        maxCount={1}
        beforeUpload={(file) => {
          const problem = photoProblem(file);
          if (!problem) return true;
          void message.error(t(problem));
          return Upload.LIST_IGNORE;
        }}
        customRequest={({ file, onSuccess, onError }) => {
          setUploading(true);
          uploadFile('/api/v1/manage/user/photo', file as Blob, { fields: { userId: user.userId } })
            .then((changed) => {
              onChange(changed);
              void message.success(t('org.detail.photoUpdated'));
              onSuccess?.(changed.photo);
            })
            .catch((error: Error) => onError?.(error))
            .finally(() => setUploading(false));
        }}
      >
        <Button
          size="small"
          type="link"
          icon={<UploadOutlined />}
          loading={uploading}
          title={t('org.detail.photoHint')}
        >
          {t('org.detail.uploadPhoto')}
        </Button>
      </Upload>
    </Flex>
  );
}
