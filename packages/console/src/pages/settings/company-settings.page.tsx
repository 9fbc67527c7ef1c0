import { Flex } from 'antd';
import { AdministratorsCard } from './administrators.card.tsx';
import { CompanyInfoCard } from './company-info.card.tsx';
import { ConsoleRolesCard } from './console-roles.card.tsx';
import { ScimTokensCard } from './scim-tokens.card.tsx';
import { SmsCard } from './sms.card.tsx';
import { SyslogCard } from './syslog.card.tsx';

/**
 * /setting/basic-set (both route sets): the company's information, its administrators and custom
 * console roles, syslog forwarding, its SMS sign name and its SCIM tokens.
 */
export function CompanySettingsPage() {
  return (
    <Flex vertical gap={24} style={{ maxWidth: 1200 }}>
      <CompanyInfoCard />
      <AdministratorsCard />
      <ConsoleRolesCard />
      <SyslogCard />
      <SmsCard />
      <ScimTokensCard />
    </Flex>
  );
}
