import {
  ApartmentOutlined,
  DingtalkOutlined,
  LoginOutlined,
  SafetyCertificateOutlined,
  WechatOutlined,
  WechatWorkOutlined,
} from '@ant-design/icons';
import { type IdentitySourceType, identitySourceTypes } from '@tessera/contract/constants';
import { Card, Col, Flex, Row, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { BackButton } from '../../components/detail-nav.tsx';
import { useRouteSet } from '../../layout/use-route-set.ts';
import { newSourcePath, SOURCE_LIST_PATH } from './source-view.ts';

const icons: Record<IdentitySourceType, ReactNode> = {
  ldap: <ApartmentOutlined style={{ fontSize: 24, color: '#1677ff' }} />,
  dingtalk: <DingtalkOutlined style={{ fontSize: 24, color: '#1677ff' }} />,
  weixin: <WechatOutlined style={{ fontSize: 24, color: '#07c160' }} />,
  work_weixin: <WechatWorkOutlined style={{ fontSize: 24, color: '#0082ef' }} />,
  oidc: <LoginOutlined style={{ fontSize: 24, color: '#f5a623' }} />,
  saml: <SafetyCertificateOutlined style={{ fontSize: 24, color: '#722ed1' }} />,
};

/** /identity-source/select-identity-source (hidden): a card per type; WeChat Work in the full set only. */
export function SelectIdentitySourcePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const full = useRouteSet() === 'full';
  const types = identitySourceTypes.filter((type) => type !== 'work_weixin' || full);
  return (
    <Flex vertical gap={16} style={{ maxWidth: 1200 }}>
      <BackButton to={SOURCE_LIST_PATH}>{t('sources.select.back')}</BackButton>
      <Card title={t('sources.select.title')}>
        <Row gutter={[16, 16]}>
          {types.map((type) => (
            <Col key={type} xs={24} sm={12} xl={6}>
              <Card
                hoverable
                size="small"
                role="button"
                tabIndex={0}
                data-testid={`source-type-${type}`}
                onClick={() => navigate(newSourcePath(type))}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' || event.key === ' ') {
                    event.preventDefault();
                    navigate(newSourcePath(type));
                  }
                }}
                style={{ height: '100%' }}
              >
                <Flex gap={12} align="flex-start">
                  <Flex
                    align="center"
                    justify="center"
                    style={{ width: 44, height: 44, borderRadius: 9, background: '#f5f7fa', flex: 'none' }}
                  >
                    {icons[type]}
                  </Flex>
                  <Flex vertical style={{ minWidth: 0 }}>
                    <Typography.Text strong>{t(`sources.type.${type}`)}</Typography.Text>
                    <Typography.Text type="secondary">{t(`sources.typeHint.${type}`)}</Typography.Text>
                  </Flex>
                </Flex>
              </Card>
            </Col>
          ))}
        </Row>
      </Card>
    </Flex>
  );
}
