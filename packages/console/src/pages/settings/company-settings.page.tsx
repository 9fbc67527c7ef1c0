import { Flex } from 'antd';
import { AdministratorsCard } from './administrators.card.tsx';
import { CompanyInfoCard } from './company-info.card.tsx';
import { SmsCard } from './sms.card.tsx';
import { SyslogCard } from './syslog.card.tsx';

/** /setting/basic-set (both route sets): the company's information, its administrators, syslog forwarding and its SMS sign name. */
export function CompanySettingsPage() {
  return (
    <Flex vertical gap={24} style={{ maxWidth: 1200 }}>
      <CompanyInfoCard />
      <AdministratorsCard />
      <SyslogCard />
      <SmsCard />
    </Flex>
  );
}
