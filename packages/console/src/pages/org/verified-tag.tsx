import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDate } from '../../lib/format/date.ts';

/**
 * Whether the person proved an address theirs with a code (the user centre); an administrator's
 * change of the address clears it, and the person verifies again.
 */
export function VerifiedTag({ verifiedAt }: { verifiedAt: string | null }) {
  const { t } = useTranslation();
  return verifiedAt ? (
    <Tooltip title={t('org.detail.verifiedAt', { time: formatDate(verifiedAt) })}>
      <Tag color="success" variant="filled" data-verified="yes">
        {t('org.detail.verified')}
      </Tag>
    </Tooltip>
  ) : (
    <Tooltip title={t('org.detail.notVerifiedHint')}>
      <Tag variant="filled" data-verified="no">
        {t('org.detail.notVerified')}
      </Tag>
    </Tooltip>
  );
}
