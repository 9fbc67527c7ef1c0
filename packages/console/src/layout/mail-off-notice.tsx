import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';

/** The company console's standing notice while the platform cannot send mail (TESSERA_SMTP_URL). */
export function MailOffNotice() {
  const { t } = useTranslation();
  return (
    <Alert
      role="status"
      data-testid="mail-off-notice"
      type="warning"
      showIcon
      title={t('org.users.mailOffTitle')}
      description={t('org.users.mailOffText')}
      style={{ marginBottom: 16 }}
    />
  );
}
