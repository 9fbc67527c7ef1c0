import { CheckOutlined, CopyOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Modal, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * Shows a secret the server answers only once (a client secret, a programmatic access account's
 * secret, a RADIUS client's shared secret, a PKCS#12 file's password), with a copy button and the
 * warning that it is not shown again. It closes only by its button: a stray click outside or
 * Escape does not lose the secret.
 */
export function SecretOnceModal({
  title,
  secret,
  clientId,
  label,
  children,
  onClose,
}: {
  title: string;
  secret: string;
  clientId?: string;
  /** What the secret is (default: "Secret"). */
  label?: string;
  /** Shown under the secret (a download of what the secret opens). */
  children?: ReactNode;
  onClose(): void;
}) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      // No clipboard (plain http on another host): the secret stays selectable.
    }
  };
  return (
    <Modal
      open
      title={title}
      closable={false}
      mask={{ closable: false }}
      keyboard={false}
      onCancel={onClose}
      footer={
        <Button type="primary" onClick={onClose}>
          {t('apps.secret.done')}
        </Button>
      }
    >
      <Flex vertical gap={16}>
        <Alert
          type="warning"
          showIcon
          title={t('apps.secret.warning')}
          description={t('apps.secret.warningDetail')}
        />
        {clientId ? (
          <div>
            <Typography.Text type="secondary">{t('apps.secret.clientId')}</Typography.Text>
            <div>
              <Typography.Text code copyable style={{ wordBreak: 'break-all' }}>
                {clientId}
              </Typography.Text>
            </div>
          </div>
        ) : null}
        <div>
          <Typography.Text type="secondary">{label ?? t('apps.secret.secret')}</Typography.Text>
          <Flex gap={8} align="center" wrap={false}>
            <Typography.Text
              code
              data-testid="secret-once"
              style={{ wordBreak: 'break-all', fontFamily: 'monospace', flex: 1 }}
            >
              {secret}
            </Typography.Text>
            <Button icon={copied ? <CheckOutlined /> : <CopyOutlined />} onClick={copy}>
              {copied ? t('apps.secret.copied') : t('apps.secret.copy')}
            </Button>
          </Flex>
        </div>
        {children}
      </Flex>
    </Modal>
  );
}
