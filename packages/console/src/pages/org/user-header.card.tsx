import { Avatar, Button, Card, Flex, Space, Tag, Tooltip, Typography } from 'antd';
import { Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole, useMailEnabled, useSession } from '../../app/console-context.ts';
import { ImageUpload } from '../../components/image-upload.tsx';
import { ResetPasswordModal } from './lazy-parts.ts';
import type { OrgUser } from './org-types.ts';
import { photoAccept, photoProblem } from './photo-file.ts';
import { useUserActions } from './use-user-actions.tsx';
import { displayName, statusActions } from './user-status.ts';
import { UserStatusTag } from './user-status-tag.tsx';

/** Photo, names, status and the actions on the user. */
/** Sign-in link and account email: disabled while mail is off, with the reason on hover. */
function MailButtons({
  mailOff,
  busy,
  onLink,
  onEmail,
}: {
  mailOff: boolean;
  busy: boolean;
  onLink(): void;
  onEmail(): void;
}) {
  const { t } = useTranslation();
  const buttons = [
    { key: 'link', label: t('org.users.sendLink'), onClick: onLink },
    { key: 'email', label: t('org.detail.sendAccountEmail'), onClick: onEmail },
  ];
  return buttons.map(({ key, label, onClick }) =>
    mailOff ? (
      <Tooltip key={key} title={t('org.users.mailOff')}>
        {/* A disabled button gets no pointer events: the wrapper shows the reason. */}
        <span style={{ display: 'inline-block', cursor: 'not-allowed' }}>
          <Button disabled style={{ pointerEvents: 'none' }}>
            {label}
          </Button>
        </span>
      </Tooltip>
    ) : (
      <Button key={key} disabled={busy} onClick={onClick}>
        {label}
      </Button>
    ),
  );
}

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
  const mailEnabled = useMailEnabled();
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
            <MailButtons
              mailOff={mailEnabled === false}
              busy={busy}
              onLink={() => run(() => actions.sendSignInLink(user))}
              onEmail={() => run(() => actions.sendAccountEmail(user))}
            />
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
  const { uploadFile } = useConsole();
  const avatar = (
    <Avatar size={64} src={user.photo ?? undefined} alt={displayName(user)}>
      {displayName(user).slice(0, 1).toUpperCase()}
    </Avatar>
  );
  if (!user.managed) return avatar;
  return (
    <Flex vertical align="center" gap={4}>
      {avatar}
      <ImageUpload
        accept={photoAccept}
        problemOf={photoProblem}
        send={async (file) =>
          onChange(await uploadFile('/api/v1/manage/user/photo', file, { fields: { userId: user.userId } }))
        }
        uploaded="org.detail.photoUpdated"
        button={{ size: 'small', type: 'link', title: t('org.detail.photoHint') }}
      >
        {t('org.detail.uploadPhoto')}
      </ImageUpload>
    </Flex>
  );
}
