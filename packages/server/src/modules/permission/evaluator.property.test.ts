import { BlockList } from 'node:net';
import { ipInRange, parseIp, parseIpRange } from '@tessera/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide, type PersonFacts, permittedActions } from './evaluator.ts';
import { compilePolicy, type RuleRow } from './policy.repo.ts';

/**
 * Issue 15: the evaluator against a plain reference implementation written straight from the
 * rules of spec §3 (a reject overrides an allow; a department includes its sub departments;
 * roles and departments expanded at decision time; nothing matching means denied), on generated
 * companies and questions. The reference shares nothing with the product but the model: its
 * time windows read the wall clock from `toLocaleString`, its address ranges are Node's BlockList.
 */

const ACTIONS = ['read', 'write', 'delete', 'export'];
const ZONES = ['UTC', 'Asia/Shanghai', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata'];
const RANGES = [
  '10.0.0.0/8',
  '10.1.0.0/16',
  '192.168.1.0/24',
  '192.168.1.7',
  '2001:db8::/32',
  '2001:db8:1::/48',
  '::1',
];
const ADDRESSES = [
  '10.1.2.3',
  '10.200.0.1',
  '192.168.1.7',
  '192.168.2.1',
  '2001:db8:1::5',
  '2001:db9::1',
  '::1',
];
/** Two weeks around a fixed moment, so that windows, days and validity all vary. */
const T0 = Date.UTC(2026, 2, 20, 0, 0, 0);
const SPAN = 14 * 86_400_000;

interface Model {
  departments: { id: string; parentId: string | null }[];
  roles: string[];
  people: { id: string; enabled: boolean; roles: string[]; departments: string[] }[];
  resources: { id: string; appId: string; name: string; actions: string[] }[];
  authorizations: {
    id: string;
    appId: string;
    subjectType: 'user' | 'role' | 'department';
    subjectId: string;
    effect: 'allow' | 'reject';
    resourceIds: string[] | null;
    actions: string[] | null;
    validFrom: number | null;
    validUntil: number | null;
    windows: { days: number[]; from: number; to: number }[];
    timeZone: string;
    ranges: string[];
  }[];
}

const hhmm = (minutes: number) =>
  minutes === 1440
    ? '24:00'
    : `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

const modelArb: fc.Arbitrary<Model> = fc
  .record({
    departmentCount: fc.integer({ min: 1, max: 7 }),
    roleCount: fc.integer({ min: 0, max: 3 }),
    peopleCount: fc.integer({ min: 1, max: 5 }),
    appCount: fc.integer({ min: 1, max: 2 }),
  })
  .chain(({ departmentCount, roleCount, peopleCount, appCount }) => {
    const departmentIds = Array.from({ length: departmentCount }, (_, i) => `d${i}`);
    const roleIds = Array.from({ length: roleCount }, (_, i) => `r${i}`);
    const peopleIds = Array.from({ length: peopleCount }, (_, i) => `u${i}`);
    const appIds = Array.from({ length: appCount }, (_, i) => `app${i}`);
    const parents = fc.tuple(
      ...departmentIds.map((_, i) =>
        i === 0 ? fc.constant(null) : fc.integer({ min: 0, max: i - 1 }).map((p) => `d${p}`),
      ),
    );
    const people = fc.tuple(
      ...peopleIds.map((id) =>
        fc.record({
          id: fc.constant(id),
          enabled: fc.constantFrom(true, true, true, false),
          roles: fc.subarray(roleIds),
          departments: fc.subarray(departmentIds),
        }),
      ),
    );
    const resources = fc
      .tuple(...appIds.map((appId) => fc.integer({ min: 1, max: 3 }).map((n) => ({ appId, n }))))
      .chain((perApp) =>
        fc.tuple(
          ...perApp.flatMap(({ appId, n }) =>
            Array.from({ length: n }, (_, i) =>
              fc
                .subarray(ACTIONS)
                .map((actions) => ({ id: `${appId}-res${i}`, appId, name: `res${i}`, actions })),
            ),
          ),
        ),
      );
    return fc
      .record({ parents, people, resources })
      .chain(({ parents: parentOf, people: folks, resources: res }) => {
        const subject = fc.oneof(
          fc.constantFrom(...peopleIds).map((id) => ({ subjectType: 'user' as const, subjectId: id })),
          fc
            .constantFrom(...departmentIds)
            .map((id) => ({ subjectType: 'department' as const, subjectId: id })),
          ...(roleIds.length
            ? [fc.constantFrom(...roleIds).map((id) => ({ subjectType: 'role' as const, subjectId: id }))]
            : []),
        );
        const authorization = (i: number) =>
          fc
            .record({
              appId: fc.constantFrom(...appIds),
              subject,
              effect: fc.constantFrom('allow' as const, 'allow' as const, 'reject' as const),
              allResources: fc.boolean(),
              resourcePick: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
              actions: fc.option(fc.subarray(ACTIONS, { minLength: 1 }), { nil: null }),
              validFrom: fc.option(fc.integer({ min: T0 - SPAN, max: T0 + SPAN }), { nil: null, freq: 3 }),
              validFor: fc.option(fc.integer({ min: 1, max: SPAN }), { nil: null, freq: 3 }),
              windows: fc.array(
                fc
                  .record({
                    days: fc.subarray([1, 2, 3, 4, 5, 6, 7], { minLength: 1 }),
                    from: fc.integer({ min: 0, max: 1439 }),
                    length: fc.integer({ min: 1, max: 1440 }),
                  })
                  .map(({ days, from, length }) => ({ days, from, to: Math.min(1440, from + length) })),
                { maxLength: 2 },
              ),
              timeZone: fc.constantFrom(...ZONES),
              ranges: fc.subarray(RANGES, { maxLength: 2 }),
            })
            .map((a) => {
              const ofApp = res.filter((r) => r.appId === a.appId);
              return {
                id: `a${i}`,
                appId: a.appId,
                subjectType: a.subject.subjectType,
                subjectId: a.subject.subjectId,
                effect: a.effect,
                resourceIds: a.allResources
                  ? null
                  : [...new Set(a.resourcePick.map((n) => ofApp[n % ofApp.length]!.id))],
                actions: a.actions,
                validFrom: a.validFrom,
                validUntil: a.validFor === null ? null : (a.validFrom ?? T0 - SPAN) + a.validFor,
                windows: a.windows,
                timeZone: a.timeZone,
                ranges: a.ranges,
              };
            });
        return fc
          .integer({ min: 0, max: 12 })
          .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => authorization(i))))
          .map((authorizations) => ({
            departments: departmentIds.map((id, i) => ({ id, parentId: parentOf[i] ?? null })),
            roles: roleIds,
            people: folks,
            resources: res,
            authorizations,
          }));
      });
  });

interface Question {
  personId: string;
  appId: string;
  resource: string;
  action: string;
  at: number;
  ip: string | undefined;
}

const questionArb = (model: Model): fc.Arbitrary<Question> =>
  fc.record({
    personId: fc.constantFrom(...model.people.map((p) => p.id), 'stranger'),
    appId: fc.constantFrom('app0', 'app1'),
    resource: fc.constantFrom('res0', 'res1', 'res2', 'nothing'),
    action: fc.constantFrom(...ACTIONS, 'fly'),
    at: fc.integer({ min: T0 - SPAN, max: T0 + SPAN }),
    ip: fc.option(fc.constantFrom(...ADDRESSES), { nil: undefined }),
  });

// ---- the reference: straight from the rules, nothing shared with the product

/** Wall-clock weekday (1 Monday … 7 Sunday) and minute in a time zone, read from toLocaleString. */
function wallClock(at: number, timeZone: string) {
  const text = new Date(at).toLocaleString('en-US', { timeZone, hour12: false });
  const [date, time] = text.split(', ') as [string, string];
  const [month, day, year] = date.split('/').map(Number) as [number, number, number];
  const [hour, minute] = time.split(':').map(Number) as [number, number];
  const utc = new Date(Date.UTC(year, month - 1, day, hour % 24, minute));
  const weekday = utc.getUTCDay();
  return { day: weekday === 0 ? 7 : weekday, minute: (hour % 24) * 60 + minute };
}

function inRanges(ip: string, ranges: string[]) {
  const list = new BlockList();
  for (const range of ranges) {
    const [network, bits] = range.split('/') as [string, string | undefined];
    const family = network.includes(':') ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(network, family);
    else list.addSubnet(network, Number(bits), family);
  }
  return list.check(ip, ip.includes(':') ? 'ipv6' : 'ipv4');
}

function reference(model: Model, q: Question) {
  const person = model.people.find((p) => p.id === q.personId);
  if (!person) return { allowed: false, reason: 'unknown_person', deciding: [] as string[] };
  if (!person.enabled) return { allowed: false, reason: 'person_disabled', deciding: [] as string[] };
  const resource = model.resources.find((r) => r.appId === q.appId && r.name === q.resource);
  if (!resource) return { allowed: false, reason: 'unknown_resource', deciding: [] as string[] };
  if (!resource.actions.includes(q.action))
    return { allowed: false, reason: 'unknown_action', deciding: [] as string[] };
  const isWithin = (department: string, ancestor: string) => {
    for (
      let at: string | null = department;
      at !== null;
      at = model.departments.find((d) => d.id === at)!.parentId
    )
      if (at === ancestor) return true;
    return false;
  };
  const rejects: string[] = [];
  const allows: string[] = [];
  for (const a of model.authorizations) {
    if (a.appId !== q.appId) continue;
    const named =
      (a.subjectType === 'user' && a.subjectId === person.id) ||
      (a.subjectType === 'role' && person.roles.includes(a.subjectId)) ||
      (a.subjectType === 'department' && person.departments.some((d) => isWithin(d, a.subjectId)));
    if (!named) continue;
    if (a.resourceIds !== null && !a.resourceIds.includes(resource.id)) continue;
    if (a.actions !== null && !a.actions.includes(q.action)) continue;
    let condition: 'holds' | 'fails' | 'unknown' = 'holds';
    if ((a.validFrom !== null && q.at < a.validFrom) || (a.validUntil !== null && q.at >= a.validUntil))
      condition = 'fails';
    if (condition === 'holds' && a.windows.length) {
      const clock = wallClock(q.at, a.timeZone);
      if (!a.windows.some((w) => w.days.includes(clock.day) && clock.minute >= w.from && clock.minute < w.to))
        condition = 'fails';
    }
    if (condition === 'holds' && a.ranges.length)
      condition = q.ip === undefined ? 'unknown' : inRanges(q.ip, a.ranges) ? 'holds' : 'fails';
    if (a.effect === 'reject' && condition !== 'fails') rejects.push(a.id);
    if (a.effect === 'allow' && condition === 'holds') allows.push(a.id);
  }
  if (rejects.length) return { allowed: false, reason: 'rejected', deciding: rejects.sort() };
  if (allows.length) return { allowed: true, reason: 'allowed', deciding: allows.sort() };
  return { allowed: false, reason: 'no_match', deciding: [] as string[] };
}

// ---- the product, compiled from rows as the database gives them

function productOf(model: Model) {
  const rules: RuleRow[] = model.authorizations.map((a) => ({
    id: a.id,
    app_id: a.appId,
    subject_type: a.subjectType,
    subject_id: a.subjectId,
    effect: a.effect,
    resource_scope: a.resourceIds === null ? 'all' : 'specific',
    action_scope: a.actions === null ? 'all' : 'specific',
    actions: a.actions ?? [],
    valid_from: a.validFrom === null ? null : new Date(a.validFrom),
    valid_until: a.validUntil === null ? null : new Date(a.validUntil),
    time_windows: a.windows.map((w) => ({ days: w.days, from: hhmm(w.from), to: hhmm(w.to) })),
    time_zone: a.timeZone,
    ip_ranges: a.ranges.map((r) => parseIpRange(r)!.text),
    description: null,
    resource_ids: a.resourceIds ?? [],
  }));
  const policy = compilePolicy(
    'company',
    model.resources.map((r) => ({
      id: r.id,
      app_id: r.appId,
      name: r.name,
      type: 'api',
      data: null,
      actions: r.actions,
    })),
    rules,
    model.roles.map((id) => ({ id, name: `Role ${id}` })),
    model.departments.map((d) => ({ id: d.id, parent_id: d.parentId, name: `Department ${d.id}` })),
  );
  const facts = (id: string): PersonFacts | null => {
    const person = model.people.find((p) => p.id === id);
    return person
      ? {
          accountId: id,
          username: id,
          enabled: person.enabled,
          roleIds: person.roles,
          departmentIds: person.departments,
        }
      : null;
  };
  return { policy, facts };
}

const ctxOf = (q: Question) => ({
  at: new Date(q.at),
  ip: q.ip === undefined ? undefined : (parseIp(q.ip) ?? undefined),
});

describe('the permission evaluator', () => {
  it('gives the reference verdict, reason and deciding rules for every generated question', () => {
    fc.assert(
      fc.property(
        modelArb.chain((model) =>
          fc.tuple(fc.constant(model), fc.array(questionArb(model), { minLength: 1, maxLength: 20 })),
        ),
        ([model, questions]) => {
          const { policy, facts } = productOf(model);
          for (const q of questions) {
            const verdict = decide(policy, facts(q.personId), q.appId, q.resource, q.action, ctxOf(q));
            expect({
              allowed: verdict.allowed,
              reason: verdict.reason,
              deciding: verdict.deciding.map((m) => m.rule.id).sort(),
            }).toEqual(reference(model, q));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('lists exactly the pairs it allows one by one', () => {
    fc.assert(
      fc.property(
        modelArb.chain((model) => fc.tuple(fc.constant(model), questionArb(model))),
        ([model, q]) => {
          const { policy, facts } = productOf(model);
          const person = facts(q.personId);
          const listed = permittedActions(policy, person, q.appId, ctxOf(q));
          for (const resource of model.resources.filter((r) => r.appId === q.appId))
            for (const action of resource.actions) {
              const one = decide(policy, person, q.appId, resource.name, action, ctxOf(q)).allowed;
              expect(listed.get(resource.id)?.has(action) ?? false).toBe(one);
            }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('explains with every rule that named the person, resource and action', () => {
    fc.assert(
      fc.property(
        modelArb.chain((model) => fc.tuple(fc.constant(model), questionArb(model))),
        ([model, q]) => {
          const { policy, facts } = productOf(model);
          const verdict = decide(policy, facts(q.personId), q.appId, q.resource, q.action, ctxOf(q), true);
          // The deciding rules are among the matched ones, and applied.
          for (const rule of verdict.deciding) expect(verdict.matched).toContainEqual(rule);
          expect(verdict.deciding.every((m) => m.applied)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('IP ranges', () => {
  const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
  const v6 = fc
    .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
    .map((groups) => groups.map((g) => g.toString(16)).join(':'))
    .filter((text) => !text.startsWith('0:0:0:0:0:ffff:'));

  it('matches IPv4 addresses as Node does', () => {
    fc.assert(
      fc.property(v4, v4, fc.integer({ min: 0, max: 32 }), (network, address, prefix) => {
        const range = parseIpRange(`${network}/${prefix}`)!;
        const list = new BlockList();
        list.addSubnet(range.text.split('/')[0]!, prefix, 'ipv4');
        expect(ipInRange(parseIp(address)!, range)).toBe(list.check(address, 'ipv4'));
      }),
    );
  });

  it('matches IPv6 addresses as Node does, and prints ranges it reads back the same', () => {
    fc.assert(
      fc.property(v6, v6, fc.integer({ min: 0, max: 128 }), (network, address, prefix) => {
        const range = parseIpRange(`${network}/${prefix}`)!;
        const list = new BlockList();
        list.addSubnet(range.text.split('/')[0]!, prefix, 'ipv6');
        expect(ipInRange(parseIp(address)!, range)).toBe(list.check(address, 'ipv6'));
        expect(parseIpRange(range.text)?.text).toBe(range.text);
      }),
    );
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 address, and refuses what is not an address', () => {
    expect(ipInRange(parseIp('::ffff:10.1.2.3')!, parseIpRange('10.0.0.0/8')!)).toBe(true);
    expect(parseIpRange('10.1.2.3/8')?.text).toBe('10.0.0.0/8');
    expect(parseIpRange('2001:DB8:0:0:1::/64')?.text).toBe('2001:db8::/64');
    for (const bad of [
      '10.0.0.256',
      '10.0.0',
      '010.0.0.1',
      '10.0.0.0/33',
      '1::2::3',
      'fe80::1%eth0',
      'example.com',
      '::/129',
    ])
      expect(parseIpRange(bad), bad).toBeNull();
  });
});
