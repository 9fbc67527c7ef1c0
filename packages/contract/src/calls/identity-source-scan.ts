import { z } from 'zod';
import { identitySourceLimits as limits } from '../constants.ts';
import { common, firstScan, secret, syncIntervalMinutes, text } from './identity-source-fields.ts';

/** The settings of the scan sign-in sources: DingTalk, WeChat and WeCom. */

export const dingtalkSettings = z.object({
  ...common,
  appKey: text(limits.credentialMax, 'identity_source.app_key_required'),
  appSecret: secret,
  firstScan,
  syncIntervalMinutes: syncIntervalMinutes.default(0),
});
export const weixinSettings = z.object({
  ...common,
  appId: text(limits.credentialMax, 'identity_source.app_id_required'),
  appSecret: secret,
  firstScan,
});
export const workWeixinSettings = z.object({
  ...common,
  corpId: text(limits.credentialMax, 'identity_source.corp_id_required'),
  agentId: text(limits.credentialMax, 'identity_source.agent_id_required'),
  secret,
  firstScan,
  syncIntervalMinutes: syncIntervalMinutes.default(0),
});
