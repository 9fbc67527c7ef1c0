import { DIRECTORY_TIMEOUT_MS } from '@tessera/contract';
import type { DingtalkSettings, WeixinSettings, WorkWeixinSettings } from '../identity-source.repo.ts';
import { SourceFailure } from '../source-failure.ts';
import { cleanEmail, cleanPhone, cleanText } from '../sync/snapshot.ts';

/**
 * The scan sign-in of DingTalk, WeChat (Open Platform) and WeCom: the provider's QR / OAuth page,
 * and the exchange of the code it returns at its documented endpoints for the person's stable id
 * (DingTalk unionId, WeChat unionid, WeCom userid). The base addresses are configuration
 * (TESSERA_*_URL), so that tests run this very code against local servers.
 */

export interface ProviderUrls {
  dingtalkLogin: string;
  dingtalkApi: string;
  dingtalkOapi: string;
  weixinOpen: string;
  weixinApi: string;
  wecomLogin: string;
  wecomApi: string;
}

export const defaultProviderUrls: ProviderUrls = {
  dingtalkLogin: 'https://login.dingtalk.com',
  dingtalkApi: 'https://api.dingtalk.com',
  dingtalkOapi: 'https://oapi.dingtalk.com',
  weixinOpen: 'https://open.weixin.qq.com',
  weixinApi: 'https://api.weixin.qq.com',
  wecomLogin: 'https://login.work.weixin.qq.com',
  wecomApi: 'https://qyapi.weixin.qq.com',
};

export type ScanSource =
  | { type: 'dingtalk'; settings: DingtalkSettings }
  | { type: 'weixin'; settings: WeixinSettings }
  | { type: 'work_weixin'; settings: WorkWeixinSettings };

/** Who scanned: the provider's stable id and what it tells of them. */
export interface ScanIdentity {
  externalId: string;
  /** A name to show (nickname). */
  name: string | null;
  email: string | null;
  phone: string | null;
  /** WeCom: the member's userid (a username candidate). */
  login: string | null;
}

const providerName = { dingtalk: 'DingTalk', weixin: 'WeChat', work_weixin: 'WeCom' } as const;

/** A provider call: JSON in and out, within the directory time-out, any failure an SourceFailure-like reason. */
export async function providerCall<T>(
  provider: keyof typeof providerName,
  url: string,
  init: { method?: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(DIRECTORY_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new SourceFailure('scan.provider_unreachable', { provider: providerName[provider], detail: cause });
  }
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new SourceFailure('scan.provider_failed', {
      provider: providerName[provider],
      detail: `HTTP ${response.status}`,
    });
  }
  // WeChat and WeCom answer errcode (0: success); DingTalk's new API answers HTTP errors with code/message.
  const errcode = body.errcode;
  if (!response.ok || (typeof errcode === 'number' && errcode !== 0)) {
    const detail = [body.errcode ?? body.code ?? `HTTP ${response.status}`, body.errmsg ?? body.message]
      .filter(Boolean)
      .join(' ');
    throw new SourceFailure('scan.provider_failed', {
      provider: providerName[provider],
      detail: String(detail).slice(0, 200),
    });
  }
  return body as T;
}

const query = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** The provider's page that shows the QR code (or asks to authorise), returning to `redirectUri` with `state`. */
export function authorizeUrl(
  source: ScanSource,
  urls: ProviderUrls,
  redirectUri: string,
  state: string,
): string {
  switch (source.type) {
    case 'dingtalk':
      return `${urls.dingtalkLogin}/oauth2/auth?${query({
        redirect_uri: redirectUri,
        response_type: 'code',
        client_id: source.settings.appKey,
        scope: 'openid',
        state,
        prompt: 'consent',
      })}`;
    case 'weixin':
      return `${urls.weixinOpen}/connect/qrconnect?${query({
        appid: source.settings.appId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'snsapi_login',
        state,
      })}#wechat_redirect`;
    case 'work_weixin':
      return `${urls.wecomLogin}/wwlogin/sso/login?${query({
        login_type: 'CorpApp',
        appid: source.settings.corpId,
        agentid: source.settings.agentId,
        redirect_uri: redirectUri,
        state,
      })}`;
  }
}

/** WeCom's application access token (gettoken), for the sign-in and the contact APIs. */
export async function wecomToken(settings: WorkWeixinSettings, secret: string, urls: ProviderUrls) {
  const token = await providerCall<{ access_token: string }>(
    'work_weixin',
    `${urls.wecomApi}/cgi-bin/gettoken?${query({ corpid: settings.corpId, corpsecret: secret })}`,
  );
  return token.access_token;
}

/** DingTalk's application access token (oapi gettoken), for the contact APIs. */
export async function dingtalkToken(settings: DingtalkSettings, secret: string, urls: ProviderUrls) {
  const token = await providerCall<{ access_token: string }>(
    'dingtalk',
    `${urls.dingtalkOapi}/gettoken?${query({ appkey: settings.appKey, appsecret: secret })}`,
  );
  return token.access_token;
}

/** Exchanges the code the provider returned for the person's identity. */
export async function exchangeCode(
  source: ScanSource,
  secret: string,
  code: string,
  urls: ProviderUrls,
): Promise<ScanIdentity> {
  switch (source.type) {
    case 'dingtalk': {
      const token = await providerCall<{ accessToken: string }>(
        'dingtalk',
        `${urls.dingtalkApi}/v1.0/oauth2/userAccessToken`,
        {
          method: 'POST',
          body: {
            clientId: source.settings.appKey,
            clientSecret: secret,
            code,
            grantType: 'authorization_code',
          },
        },
      );
      const me = await providerCall<{ unionId?: string; nick?: string; email?: string; mobile?: string }>(
        'dingtalk',
        `${urls.dingtalkApi}/v1.0/contact/users/me`,
        { headers: { 'x-acs-dingtalk-access-token': token.accessToken } },
      );
      if (!me.unionId)
        throw new SourceFailure('scan.provider_failed', { provider: 'DingTalk', detail: 'no unionId' });
      return {
        externalId: me.unionId,
        name: cleanText(me.nick),
        email: cleanEmail(me.email),
        phone: cleanPhone(me.mobile),
        login: null,
      };
    }
    case 'weixin': {
      const token = await providerCall<{ access_token: string; openid: string; unionid?: string }>(
        'weixin',
        `${urls.weixinApi}/sns/oauth2/access_token?${query({
          appid: source.settings.appId,
          secret,
          code,
          grant_type: 'authorization_code',
        })}`,
      );
      const info = await providerCall<{ unionid?: string; nickname?: string }>(
        'weixin',
        `${urls.weixinApi}/sns/userinfo?${query({ access_token: token.access_token, openid: token.openid, lang: 'zh_CN' })}`,
      );
      const unionid = info.unionid ?? token.unionid;
      // Without an Open Platform account the app gets no unionid: an openid alone is not stable across apps.
      if (!unionid)
        throw new SourceFailure('scan.provider_failed', { provider: 'WeChat', detail: 'no unionid' });
      return { externalId: unionid, name: cleanText(info.nickname), email: null, phone: null, login: null };
    }
    case 'work_weixin': {
      const accessToken = await wecomToken(source.settings, secret, urls);
      const who = await providerCall<{ userid?: string; UserId?: string }>(
        'work_weixin',
        `${urls.wecomApi}/cgi-bin/auth/getuserinfo?${query({ access_token: accessToken, code })}`,
      );
      const userid = who.userid ?? who.UserId;
      // Someone outside the corporation (an openid only) is nobody the company knows.
      if (!userid)
        throw new SourceFailure('scan.provider_failed', {
          provider: 'WeCom',
          detail: 'not a member of the corporation',
        });
      const user = await providerCall<{ name?: string; email?: string; mobile?: string }>(
        'work_weixin',
        `${urls.wecomApi}/cgi-bin/user/get?${query({ access_token: accessToken, userid })}`,
      );
      return {
        externalId: userid,
        name: cleanText(user.name),
        email: cleanEmail(user.email),
        phone: cleanPhone(user.mobile),
        login: userid,
      };
    }
  }
}
