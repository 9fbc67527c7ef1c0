import type { DingtalkSettings, WorkWeixinSettings } from '../identity-source.repo.ts';
import {
  cleanEmail,
  cleanPhone,
  cleanText,
  type DirectoryDepartment,
  type DirectoryPerson,
  type DirectorySnapshot,
} from '../sync/snapshot.ts';
import { dingtalkToken, type ProviderUrls, providerCall, wecomToken } from './providers.ts';

/**
 * The contact directories of DingTalk (oapi department/listsub, user/list) and WeCom
 * (department/list, user/list) as snapshots for the sync engine. The corporation's own root
 * department (id 1) is the company's root: its sub departments are the top departments. People
 * are keyed by the id the scan sign-in returns (DingTalk unionid, WeCom userid), so that a person
 * synced from contacts signs in by scanning; their username is their userid.
 */

const ROOT_DEPARTMENT = 1;

/**
 * A userid or a login name as a username (USERNAME_PATTERN): letters, digits, dot, underscore
 * and hyphen, a letter or digit first; an address such as alice@contoso.com (a user principal
 * name, an email) keeps its last `@` and its domain. Anything else becomes a hyphen.
 */
export function usernameFromLogin(login: string) {
  const local = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  const trimmed = login.trim();
  const at = trimmed.lastIndexOf('@');
  const domain =
    at > 0
      ? trimmed
          .slice(at + 1)
          .replace(/[^A-Za-z0-9.-]+/g, '-')
          .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')
      : '';
  const name = local(at > 0 ? trimmed.slice(0, at) : trimmed);
  const whole = name && domain ? `${name}@${domain}` : local(trimmed);
  return whole.length <= 64 ? whole : local(whole.replace('@', '-')).slice(0, 64);
}

interface DingtalkUser {
  userid: string;
  unionid?: string;
  name?: string;
  mobile?: string;
  email?: string;
  org_email?: string;
  dept_id_list?: number[];
  active?: boolean;
}

export async function readDingtalkContacts(
  settings: DingtalkSettings,
  secret: string,
  urls: ProviderUrls,
): Promise<DirectorySnapshot> {
  const token = await dingtalkToken(settings, secret, urls);
  const at = (path: string) => `${urls.dingtalkOapi}${path}?access_token=${encodeURIComponent(token)}`;
  const departments: DirectoryDepartment[] = [];
  const queue = [ROOT_DEPARTMENT];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { result } = await providerCall<{ result: { dept_id: number; name: string; parent_id: number }[] }>(
      'dingtalk',
      at('/topapi/v2/department/listsub'),
      { method: 'POST', body: { dept_id: next } },
    );
    for (const department of result ?? []) {
      departments.push({
        externalId: String(department.dept_id),
        name: department.name,
        parentExternalId: department.parent_id === ROOT_DEPARTMENT ? null : String(department.parent_id),
      });
      queue.push(department.dept_id);
    }
  }
  const people = new Map<string, DirectoryPerson>();
  const skipped: DirectorySnapshot['skipped'] = [];
  for (const deptId of [ROOT_DEPARTMENT, ...departments.map((d) => Number(d.externalId))]) {
    for (let cursor: number | undefined = 0; cursor !== undefined; ) {
      const page: { result: { has_more: boolean; next_cursor?: number; list: DingtalkUser[] } } =
        await providerCall('dingtalk', at('/topapi/v2/user/list'), {
          method: 'POST',
          body: { dept_id: deptId, cursor, size: 100 },
        });
      const { result } = page;
      for (const user of result.list ?? []) {
        if (!user.unionid) {
          skipped.push({ externalId: null, label: user.userid, reason: 'missing_attribute' });
          continue;
        }
        if (people.has(user.unionid)) continue;
        people.set(user.unionid, {
          externalId: user.unionid,
          username: usernameFromLogin(user.userid),
          name: cleanText(user.name),
          email: cleanEmail(user.email ?? user.org_email),
          phone: cleanPhone(user.mobile),
          dn: null,
          departmentExternalIds: (user.dept_id_list ?? []).filter((id) => id !== ROOT_DEPARTMENT).map(String),
          disabled: user.active === false,
        });
      }
      cursor = result.has_more ? result.next_cursor : undefined;
    }
  }
  return { departments, people: [...people.values()], skipped };
}

interface WecomUser {
  userid: string;
  name?: string;
  mobile?: string;
  email?: string;
  biz_mail?: string;
  department?: number[];
  /** 1 active, 2 disabled, 4 not activated, 5 left the corporation. */
  status?: number;
}

export async function readWecomContacts(
  settings: WorkWeixinSettings,
  secret: string,
  urls: ProviderUrls,
): Promise<DirectorySnapshot> {
  const token = await wecomToken(settings, secret, urls);
  const at = (path: string, params: Record<string, string> = {}) =>
    `${urls.wecomApi}/cgi-bin${path}?${new URLSearchParams({ access_token: token, ...params })}`;
  const { department } = await providerCall<{ department: { id: number; name: string; parentid: number }[] }>(
    'work_weixin',
    at('/department/list'),
  );
  const departments: DirectoryDepartment[] = (department ?? [])
    .filter((d) => d.id !== ROOT_DEPARTMENT)
    .map((d) => ({
      externalId: String(d.id),
      name: d.name,
      parentExternalId: d.parentid === ROOT_DEPARTMENT || !d.parentid ? null : String(d.parentid),
    }));
  const people = new Map<string, DirectoryPerson>();
  for (const deptId of [ROOT_DEPARTMENT, ...departments.map((d) => Number(d.externalId))]) {
    const { userlist } = await providerCall<{ userlist: WecomUser[] }>(
      'work_weixin',
      at('/user/list', { department_id: String(deptId) }),
    );
    for (const user of userlist ?? []) {
      if (people.has(user.userid)) continue;
      people.set(user.userid, {
        externalId: user.userid,
        username: usernameFromLogin(user.userid),
        name: cleanText(user.name),
        email: cleanEmail(user.email ?? user.biz_mail),
        phone: cleanPhone(user.mobile),
        dn: null,
        departmentExternalIds: (user.department ?? []).filter((id) => id !== ROOT_DEPARTMENT).map(String),
        disabled: user.status === 2 || user.status === 5,
      });
    }
  }
  return { departments, people: [...people.values()], skipped: [] };
}
