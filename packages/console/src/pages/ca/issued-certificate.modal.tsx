import { DownloadOutlined } from '@ant-design/icons';
import { Button, Flex, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { SecretOnceModal } from '../application/secret-once.modal.tsx';
import { saveBlob } from '../org/download.ts';
import type { Issued } from './issue-certificate.modal.tsx';

const fileNameOf = (issued: Issued, extension: string) =>
  `${issued.certificate.username ?? 'certificate'}-${issued.certificate.serialNumber.slice(0, 16)}.${extension}`;

const bytesOf = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));

/**
 * What an issue answered, this once: a generated key pair's PKCS#12 file with its one-time
 * password, or the certificate made from a CSR.
 */
export function IssuedCertificateModal({ issued, onClose }: { issued: Issued; onClose(): void }) {
  const { t } = useTranslation();
  const downloadPem = (
    <Button
      icon={<DownloadOutlined />}
      onClick={() =>
        saveBlob(
          new Blob([issued.certificatePem], { type: 'application/x-pem-file' }),
          fileNameOf(issued, 'pem'),
        )
      }
    >
      {t('ca.issue.downloadPem')}
    </Button>
  );
  const { pkcs12, pkcs12Password } = issued;
  if (pkcs12 && pkcs12Password)
    return (
      <SecretOnceModal
        title={t('ca.issue.passwordTitle')}
        label={t('ca.issue.passwordLabel')}
        secret={pkcs12Password}
        onClose={onClose}
      >
        <Flex gap={8} wrap>
          <Button
            type="primary"
            icon={<DownloadOutlined />}
            onClick={() =>
              saveBlob(
                new Blob([bytesOf(pkcs12)], { type: 'application/x-pkcs12' }),
                fileNameOf(issued, 'p12'),
              )
            }
          >
            {t('ca.issue.download')}
          </Button>
          {downloadPem}
        </Flex>
      </SecretOnceModal>
    );
  return (
    <Modal
      open
      title={t('ca.issue.resultTitle')}
      onCancel={onClose}
      footer={
        <Button type="primary" onClick={onClose}>
          {t('apps.secret.done')}
        </Button>
      }
    >
      <Flex vertical gap={12}>
        <Typography.Text>{issued.certificate.subject}</Typography.Text>
        <Typography.Paragraph
          code
          copyable={{ text: issued.certificatePem }}
          style={{ whiteSpace: 'pre-wrap', fontSize: 11, maxHeight: 240, overflow: 'auto', marginBottom: 0 }}
        >
          {issued.certificatePem}
        </Typography.Paragraph>
        <div>{downloadPem}</div>
      </Flex>
    </Modal>
  );
}
