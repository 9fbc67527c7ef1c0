import { useTranslation } from 'react-i18next';
import type { TimeInput } from './format/date.ts';
import { relativeTimeZh } from './format/relative-time.ts';
import { timeAgo } from './format/time-ago.ts';

/** "5 minutes ago" in English, the spec's Chinese relative wording ("5分钟前") in Chinese. */
export function useTimeAgo(): (time: TimeInput) => string {
  const { t, i18n } = useTranslation();
  return (time) => (i18n.language === 'zh' ? relativeTimeZh(time) : t('common.ago', { time: timeAgo(time) }));
}
