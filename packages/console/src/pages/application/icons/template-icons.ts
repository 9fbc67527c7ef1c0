import aliyun from './aliyun.svg';
import atlassian from './atlassian.svg';
import aws from './aws.svg';
import feishu from './feishu.svg';
import gitlab from './gitlab.svg';
import grafana from './grafana.svg';
import harbor from './harbor.svg';
import huaweiCloud from './huawei-cloud.svg';
import jenkins from './jenkins.svg';
import jumpserver from './jumpserver.svg';
import legacyForm from './legacy-form.svg';
import nextcloud from './nextcloud.svg';
import salesforce from './salesforce.svg';
import tencentCloud from './tencent-cloud.svg';
import zentao from './zentao.svg';
import zoom from './zoom.svg';

/** The icon of each catalogue application (`appTemplates` keys), as an image address. */
export const templateIcons: Readonly<Record<string, string>> = {
  gitlab,
  grafana,
  jenkins,
  nextcloud,
  harbor,
  legacy_form: legacyForm,
  aws,
  salesforce,
  zoom,
  gitlab_saml: gitlab,
  nextcloud_saml: nextcloud,
  atlassian_dc: atlassian,
  jumpserver,
  zentao,
  feishu,
  aliyun_ram: aliyun,
  tencent_cam: tencentCloud,
  huawei_iam: huaweiCloud,
};
