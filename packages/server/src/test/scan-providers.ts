import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local stand-ins for DingTalk, WeChat (Open Platform) and WeCom, implementing the documented
 * endpoints Tessera calls, so that tests run the product's own client code (TESSERA_*_URL point
 * here). One server; each provider host is a path prefix. The QR pages redirect at once as if
 * `scanner` had scanned and confirmed. Credentials and codes are checked like the real ones
 * (a code works once), and errors use each provider's own shape.
 *
 * - DingTalk: login.dingtalk.com/oauth2/auth → authCode; api.dingtalk.com
 *   POST /v1.0/oauth2/userAccessToken, GET /v1.0/contact/users/me (x-acs-dingtalk-access-token);
 *   oapi.dingtalk.com /gettoken, POST /topapi/v2/department/listsub, POST /topapi/v2/user/list.
 * - WeChat: open.weixin.qq.com/connect/qrconnect → code; api.weixin.qq.com
 *   /sns/oauth2/access_token, /sns/userinfo (unionid).
 * - WeCom: login.work.weixin.qq.com/wwlogin/sso/login → code; qyapi.weixin.qq.com /cgi-bin/gettoken,
 *   /cgi-bin/auth/getuserinfo, /cgi-bin/user/get, /cgi-bin/department/list, /cgi-bin/user/list.
 */

export interface FixturePerson {
  /** DingTalk and WeChat unionid; WeCom userid. */
  id: string;
  userid: string;
  name: string;
  email?: string;
  mobile?: string;
  departments: number[];
  /** WeCom status (1 active, 2 disabled, 5 left); DingTalk active flag. */
  status?: number;
}

export interface ProviderFixture {
  baseUrl: string;
  /** The TESSERA_*_URL variables that point Tessera here. */
  env: Record<string, string>;
  /** The provider URLs as the app's config takes them. */
  urls: Record<
    'dingtalkLogin' | 'dingtalkApi' | 'dingtalkOapi' | 'weixinOpen' | 'weixinApi' | 'wecomLogin' | 'wecomApi',
    string
  >;
  credentials: {
    dingtalk: { appKey: string; appSecret: string };
    weixin: { appId: string; appSecret: string };
    wecom: { corpId: string; agentId: string; secret: string };
  };
  /** Who "scans" next at each provider (an id of `people`). */
  scanner: { dingtalk: string; weixin: string; wecom: string };
  people: { dingtalk: FixturePerson[]; weixin: FixturePerson[]; wecom: FixturePerson[] };
  departments: { id: number; name: string; parentid: number }[];
  /** How many times each endpoint was called (by path). */
  calls: Map<string, number>;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

const token = () => randomBytes(12).toString('hex');

export async function startProviderFixture(): Promise<ProviderFixture> {
  const codes = new Map<string, { provider: string; personId: string }>();
  const userTokens = new Map<string, string>();
  const appTokens = new Set<string>();
  const departments = [
    { id: 1, name: 'Corporation', parentid: 0 },
    { id: 2, name: 'Research', parentid: 1 },
    { id: 3, name: 'Lab', parentid: 2 },
    { id: 4, name: 'Operations', parentid: 1 },
  ];
  const person = (
    id: string,
    name: string,
    departments: number[],
    extra: Partial<FixturePerson> = {},
  ): FixturePerson => ({
    id,
    userid: extra.userid ?? id,
    name,
    departments,
    ...extra,
  });
  const fixture = {
    credentials: {
      dingtalk: { appKey: 'dingfixturekey', appSecret: 'dingtalk-fixture-secret' },
      weixin: { appId: 'wxfixtureappid', appSecret: 'weixin-fixture-secret' },
      wecom: { corpId: 'wwfixturecorp', agentId: '1000002', secret: 'wecom-fixture-secret' },
    },
    scanner: { dingtalk: 'union-dt-1', weixin: 'union-wx-1', wecom: 'li.lei' },
    people: {
      dingtalk: [
        person('union-dt-1', '丁一', [2], {
          userid: 'ding.one',
          email: 'ding.one@dt.example',
          mobile: '13900001001',
        }),
        person('union-dt-2', '丁二', [3], { userid: 'ding.two' }),
        person('union-dt-3', '丁三', [1, 4], { userid: 'ding.three', status: 0 }),
      ],
      weixin: [person('union-wx-1', '微一', []), person('union-wx-2', '微二', [])],
      wecom: [
        person('li.lei', '李雷', [2], { email: 'li.lei@wecom.example', mobile: '13900002001' }),
        person('han.meimei', '韩梅梅', [3, 4]),
        person('gone.guy', '离职者', [4], { status: 5 }),
      ],
    },
    departments,
    calls: new Map<string, number>(),
  };

  const redirectBack = (
    res: ServerResponse,
    provider: string,
    url: URL,
    codeParam: string,
    personId: string,
  ) => {
    const redirect = url.searchParams.get('redirect_uri');
    if (!redirect) return json(res, 400, { errcode: 40013, errmsg: 'invalid redirect_uri' });
    const code = token();
    codes.set(code, { provider, personId });
    const back = new URL(redirect);
    back.searchParams.set(codeParam, code);
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    res.writeHead(302, { location: back.toString() });
    res.end();
  };
  const takeCode = (code: unknown, provider: string) => {
    const entry = typeof code === 'string' ? codes.get(code) : undefined;
    if (!entry || entry.provider !== provider) return undefined;
    codes.delete(code as string);
    return entry.personId;
  };
  const find = (list: FixturePerson[], id: string | null) => list.find((p) => p.id === id);

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const path = url.pathname;
    fixture.calls.set(path, (fixture.calls.get(path) ?? 0) + 1);
    const q = (name: string) => url.searchParams.get(name);
    const { dingtalk, weixin, wecom } = fixture.credentials;
    try {
      // ---- DingTalk
      if (path === '/dingtalk-login/oauth2/auth') {
        if (q('client_id') !== dingtalk.appKey)
          return json(res, 400, { code: 'invalidClient', message: 'unknown client_id' });
        // DingTalk returns both authCode and code; the newer documents name authCode.
        return redirectBack(res, 'dingtalk', url, 'authCode', fixture.scanner.dingtalk);
      }
      if (path === '/dingtalk-api/v1.0/oauth2/userAccessToken' && req.method === 'POST') {
        const body = await bodyOf(req);
        if (body.clientId !== dingtalk.appKey || body.clientSecret !== dingtalk.appSecret)
          return json(res, 400, {
            code: 'invalidClientSecret',
            message: 'clientSecret is invalid',
            requestid: token(),
          });
        const personId = takeCode(body.code, 'dingtalk');
        if (!personId || body.grantType !== 'authorization_code')
          return json(res, 400, {
            code: 'invalidAuthCode',
            message: 'authCode is invalid or used',
            requestid: token(),
          });
        const accessToken = token();
        userTokens.set(accessToken, personId);
        return json(res, 200, { accessToken, refreshToken: token(), expireIn: 7200, corpId: 'dingcorp' });
      }
      if (path === '/dingtalk-api/v1.0/contact/users/me') {
        const personId = userTokens.get(String(req.headers['x-acs-dingtalk-access-token'] ?? ''));
        const who = find(fixture.people.dingtalk, personId ?? null);
        if (!who) return json(res, 401, { code: 'InvalidAuthentication', message: 'token is invalid' });
        return json(res, 200, {
          nick: who.name,
          unionId: who.id,
          openId: `open-${who.id}`,
          mobile: who.mobile,
          email: who.email,
          stateCode: '86',
        });
      }
      if (path === '/dingtalk-oapi/gettoken') {
        if (q('appkey') !== dingtalk.appKey || q('appsecret') !== dingtalk.appSecret)
          return json(res, 200, { errcode: 40089, errmsg: '不合法的corpid或corpsecret' });
        const accessToken = token();
        appTokens.add(accessToken);
        return json(res, 200, { errcode: 0, errmsg: 'ok', access_token: accessToken, expires_in: 7200 });
      }
      if (path.startsWith('/dingtalk-oapi/topapi/v2/')) {
        if (!appTokens.has(q('access_token') ?? ''))
          return json(res, 200, { errcode: 88, errmsg: 'access_token invalid' });
        const body = await bodyOf(req);
        const deptId = Number(body.dept_id);
        if (path.endsWith('/department/listsub'))
          return json(res, 200, {
            errcode: 0,
            errmsg: 'ok',
            result: departments
              .filter((d) => d.parentid === deptId)
              .map((d) => ({ dept_id: d.id, name: d.name, parent_id: d.parentid })),
          });
        if (path.endsWith('/user/list')) {
          const members = fixture.people.dingtalk.filter((p) => p.departments.includes(deptId));
          const cursor = Number(body.cursor ?? 0);
          const size = Math.min(Number(body.size ?? 100), 100);
          const page = members.slice(cursor, cursor + size);
          return json(res, 200, {
            errcode: 0,
            errmsg: 'ok',
            result: {
              has_more: cursor + size < members.length,
              next_cursor: cursor + size,
              list: page.map((p) => ({
                userid: p.userid,
                unionid: p.id,
                name: p.name,
                mobile: p.mobile,
                email: p.email,
                dept_id_list: p.departments,
                active: p.status !== 0,
              })),
            },
          });
        }
      }
      // ---- WeChat Open Platform
      if (path === '/weixin-open/connect/qrconnect') {
        if (q('appid') !== weixin.appId || q('scope') !== 'snsapi_login')
          return json(res, 400, { errcode: 40013, errmsg: 'invalid appid' });
        return redirectBack(res, 'weixin', url, 'code', fixture.scanner.weixin);
      }
      if (path === '/weixin-api/sns/oauth2/access_token') {
        if (q('appid') !== weixin.appId || q('secret') !== weixin.appSecret)
          return json(res, 200, { errcode: 40125, errmsg: 'invalid appsecret' });
        const personId = takeCode(q('code'), 'weixin');
        if (!personId || q('grant_type') !== 'authorization_code')
          return json(res, 200, { errcode: 40029, errmsg: 'invalid code' });
        const accessToken = token();
        userTokens.set(accessToken, personId);
        return json(res, 200, {
          access_token: accessToken,
          expires_in: 7200,
          refresh_token: token(),
          openid: `open-${personId}`,
          scope: 'snsapi_login',
          unionid: personId,
        });
      }
      if (path === '/weixin-api/sns/userinfo') {
        const personId = userTokens.get(q('access_token') ?? '');
        const who = find(fixture.people.weixin, personId ?? null);
        if (!who || q('openid') !== `open-${who.id}`)
          return json(res, 200, { errcode: 40001, errmsg: 'invalid credential' });
        return json(res, 200, {
          openid: `open-${who.id}`,
          nickname: who.name,
          sex: 0,
          province: '',
          city: '',
          country: 'CN',
          headimgurl: '',
          privilege: [],
          unionid: who.id,
        });
      }
      // ---- WeCom
      if (path === '/wecom-login/wwlogin/sso/login') {
        if (q('appid') !== wecom.corpId || q('agentid') !== wecom.agentId)
          return json(res, 400, { errcode: 40013, errmsg: 'invalid corpid' });
        return redirectBack(res, 'wecom', url, 'code', fixture.scanner.wecom);
      }
      if (path === '/wecom-api/cgi-bin/gettoken') {
        if (q('corpid') !== wecom.corpId || q('corpsecret') !== wecom.secret)
          return json(res, 200, { errcode: 40001, errmsg: 'invalid credential' });
        const accessToken = token();
        appTokens.add(accessToken);
        return json(res, 200, { errcode: 0, errmsg: 'ok', access_token: accessToken, expires_in: 7200 });
      }
      if (path.startsWith('/wecom-api/cgi-bin/')) {
        if (!appTokens.has(q('access_token') ?? ''))
          return json(res, 200, { errcode: 40014, errmsg: 'invalid access_token' });
        if (path.endsWith('/auth/getuserinfo')) {
          const personId = takeCode(q('code'), 'wecom');
          if (!personId) return json(res, 200, { errcode: 40029, errmsg: 'invalid code' });
          return json(res, 200, { errcode: 0, errmsg: 'ok', userid: personId, user_ticket: token() });
        }
        if (path.endsWith('/user/get')) {
          const who = find(fixture.people.wecom, q('userid'));
          if (!who) return json(res, 200, { errcode: 60111, errmsg: 'userid not found' });
          return json(res, 200, {
            errcode: 0,
            errmsg: 'ok',
            userid: who.id,
            name: who.name,
            department: who.departments,
            mobile: who.mobile,
            email: who.email,
            status: who.status ?? 1,
          });
        }
        if (path.endsWith('/department/list'))
          return json(res, 200, {
            errcode: 0,
            errmsg: 'ok',
            department: departments.map((d) => ({ ...d, order: d.id })),
          });
        if (path.endsWith('/user/list')) {
          const deptId = Number(q('department_id'));
          return json(res, 200, {
            errcode: 0,
            errmsg: 'ok',
            userlist: fixture.people.wecom
              .filter((p) => p.departments.includes(deptId))
              .map((p) => ({
                userid: p.id,
                name: p.name,
                department: p.departments,
                mobile: p.mobile,
                email: p.email,
                status: p.status ?? 1,
              })),
          });
        }
      }
      json(res, 404, { errcode: 404, errmsg: `no such endpoint ${path}` });
    } catch (error) {
      json(res, 500, { errcode: -1, errmsg: (error as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const urls = {
    dingtalkLogin: `${baseUrl}/dingtalk-login`,
    dingtalkApi: `${baseUrl}/dingtalk-api`,
    dingtalkOapi: `${baseUrl}/dingtalk-oapi`,
    weixinOpen: `${baseUrl}/weixin-open`,
    weixinApi: `${baseUrl}/weixin-api`,
    wecomLogin: `${baseUrl}/wecom-login`,
    wecomApi: `${baseUrl}/wecom-api`,
  };
  return {
    ...fixture,
    baseUrl,
    urls,
    env: {
      TESSERA_DINGTALK_LOGIN_URL: urls.dingtalkLogin,
      TESSERA_DINGTALK_API_URL: urls.dingtalkApi,
      TESSERA_DINGTALK_OAPI_URL: urls.dingtalkOapi,
      TESSERA_WEIXIN_OPEN_URL: urls.weixinOpen,
      TESSERA_WEIXIN_API_URL: urls.weixinApi,
      TESSERA_WECOM_LOGIN_URL: urls.wecomLogin,
      TESSERA_WECOM_API_URL: urls.wecomApi,
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
