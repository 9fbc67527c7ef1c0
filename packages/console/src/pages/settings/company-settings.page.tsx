import { Flex } from 'antd';
import { AdministratorsCard } from './administrators.card.tsx';
import { CompanyInfoCard } from './company-info.card.tsx';

/** /setting/basic-set (both route sets): the company's information and its administrators. */
export function CompanySettingsPage() {
  return (
    <Flex vertical gap={24} style={{ maxWidth: 1200 }}>
      <CompanyInfoCard />
      <AdministratorsCard />
    </Flex>
  );
}
