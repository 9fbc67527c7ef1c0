import { userLimits } from '@tessera/contract/constants';
import { Alert, Button, Card, Checkbox, Descriptions, Form, Grid, Input } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';
import { useFeedback } from '../../app/feedback.ts';
import type { OrgUser } from './org-types.ts';
import { showFieldErrors } from './server-errors.ts';
import { emailRules, normalisePhone, optional, phoneRules, textRules } from './user-form-rules.ts';
import { VerifiedTag } from './verified-tag.tsx';

interface ProfileValues {
  name?: string;
  nickname?: string;
  email?: string;
  phone?: string;
  mustChangePassword: boolean;
}

const valuesOf = (user: OrgUser): ProfileValues => ({
  name: user.name ?? '',
  nickname: user.nickname ?? '',
  email: user.email ?? '',
  phone: user.phone ?? '',
  mustChangePassword: user.mustChangePassword,
});

/**
 * Name, nickname, email, phone and the forced password change. The company edits them for the
 * users it manages; anyone else's profile is shown read-only with a note.
 */
export function UserProfileCard({ user, onChange }: { user: OrgUser; onChange(user: OrgUser): void }) {
  const { t } = useTranslation();
  return (
    <Card title={t('org.detail.profile')}>
      {user.managed ? (
        <ProfileForm user={user} onChange={onChange} />
      ) : (
        <>
          <Alert type="info" showIcon title={t('org.detail.notManaged')} style={{ marginBottom: 16 }} />
          <Descriptions
            column={1}
            size="small"
            items={[
              { key: 'name', label: t('org.form.name'), children: user.name ?? '—' },
              { key: 'nickname', label: t('org.form.nickname'), children: user.nickname ?? '—' },
              {
                key: 'email',
                label: t('org.form.email'),
                children: user.email ? (
                  <>
                    {user.email} <VerifiedTag verifiedAt={user.emailVerifiedAt} />
                  </>
                ) : (
                  '—'
                ),
              },
              {
                key: 'phone',
                label: t('org.form.phone'),
                children: user.phone ? (
                  <>
                    {user.phone} <VerifiedTag verifiedAt={user.phoneVerifiedAt} />
                  </>
                ) : (
                  '—'
                ),
              },
            ]}
          />
        </>
      )}
    </Card>
  );
}

function ProfileForm({ user, onChange }: { user: OrgUser; onChange(user: OrgUser): void }) {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const { callApi } = useConsole();
  const [form] = Form.useForm<ProfileValues>();
  const [saving, setSaving] = useState(false);
  const narrow = !(Grid.useBreakpoint().sm ?? true);

  useEffect(() => {
    form.setFieldsValue(valuesOf(user));
  }, [form, user]);

  const onFinish = async (values: ProfileValues) => {
    setSaving(true);
    try {
      const changed = await callApi('/api/v1/manage/user/update', {
        userId: user.userId,
        name: optional(values.name),
        nickname: optional(values.nickname),
        email: optional(values.email),
        phone: optional(normalisePhone(values.phone ?? '')),
        mustChangePassword: values.mustChangePassword,
      });
      onChange(changed);
      void message.success(t('org.detail.saved'));
    } catch (error) {
      // The HTTP client has shown the message; the field it is about is marked too.
      showFieldErrors(form, error, ['name', 'nickname', 'email', 'phone']);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Form<ProfileValues>
      form={form}
      name="user-profile"
      layout={narrow ? 'vertical' : 'horizontal'}
      labelCol={narrow ? undefined : { flex: '120px' }}
      labelWrap
      // Grows from nothing: a long hint under a field wraps instead of pushing the field under its label.
      wrapperCol={narrow ? undefined : { flex: '1 1 0' }}
      initialValues={valuesOf(user)}
      onFinish={onFinish}
      disabled={saving}
      style={{ maxWidth: 640 }}
    >
      <Form.Item name="name" label={t('org.form.name')} rules={textRules(t, userLimits.nameMax)}>
        <Input maxLength={userLimits.nameMax} autoComplete="off" />
      </Form.Item>
      <Form.Item name="nickname" label={t('org.form.nickname')} rules={textRules(t, userLimits.nicknameMax)}>
        <Input maxLength={userLimits.nicknameMax} autoComplete="off" />
      </Form.Item>
      <Form.Item
        name="email"
        label={t('org.form.email')}
        rules={emailRules(t)}
        extra={user.email ? <VerifiedTag verifiedAt={user.emailVerifiedAt} /> : null}
      >
        <Input type="email" maxLength={userLimits.emailMax} autoComplete="off" />
      </Form.Item>
      <Form.Item
        name="phone"
        label={t('org.form.phone')}
        rules={phoneRules(t)}
        extra={user.phone ? <VerifiedTag verifiedAt={user.phoneVerifiedAt} /> : null}
      >
        <Input type="tel" maxLength={userLimits.phoneMax + 10} autoComplete="off" />
      </Form.Item>
      <Form.Item name="mustChangePassword" valuePropName="checked" label={null} colon={false}>
        <Checkbox>{t('org.form.mustChangePassword')}</Checkbox>
      </Form.Item>
      <Form.Item label={null} colon={false} style={{ marginBottom: 0 }}>
        <Button type="primary" htmlType="submit" loading={saving}>
          {t('org.form.save')}
        </Button>
      </Form.Item>
    </Form>
  );
}
