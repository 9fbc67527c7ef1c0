/**
 * Directory sync and directory sign-in (issue 14), against Debian's slapd seeded with ou=bench:
 * 10 000 people in 500 groups (20 top groups of 24 leaf groups each; packages/server/src/test/
 * directory-seed.ts --bench).
 *
 * - Sync: an LDAP source over ou=bench (the reader account gets 500 entries per search, so the
 *   people come in paged searches) synced into an empty company: the time from sync/start to the
 *   run's success, then a second sync that finds nothing to change. Goals: under 60 s, and a
 *   no-change re-sync under 15 s, on PostgreSQL.
 * - Sign-in: successful sign-ins on the user centre's sign-in form, alternating a synced person
 *   (password checked by a bind to the directory) and a local person of the same company
 *   (argon2id), one at a time, each on its own interaction. Goal: the directory's median within
 *   10 ms of the local one, in the same run.
 *
 *   TESSERA_TEST_LDAP_BENCH=1 bash scripts/with-postgres.sh bash scripts/with-slapd.sh \
 *     sh -c 'BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx bench/directory-sync.bench.ts'
 */
import { DIRECTORY } from '../packages/server/src/test/directory-seed.ts';
import { beginInteraction, type RelyingParty, submitLogin } from './lib/browser.ts';
import {
  adminWithCompany,
  licenseUsers,
  percentile,
  runOn,
  startLicensableServer,
  tenantCall,
} from './lib/org.ts';
import { saveResult, verdict } from './lib/report.ts';
import { envInt, fmt, sleep } from './lib/server.ts';

const SAMPLES = envInt('BENCH_DIRECTORY_SIGNINS', 200);
const LOCAL_PEOPLE = 20;
const LOCAL_PASSWORD = 'Local-Bench-Pass-1';
const { bench } = DIRECTORY;

interface Run {
  runId: string;
  status: string;
  counts: Record<string, number> | null;
  errors: { reason: string; message: string }[];
}

async function main() {
  const ldapUrl = process.env.TESSERA_TEST_LDAP_URL;
  if (!ldapUrl || process.env.TESSERA_TEST_LDAP_BENCH !== '1')
    throw new Error('run under scripts/with-slapd.sh with TESSERA_TEST_LDAP_BENCH=1 (see the header)');
  const server = await startLicensableServer({
    env: { TESSERA_OUTBOUND_ALLOWED_NETWORKS: new URL(ldapUrl).hostname },
  });
  await runOn(server, async () => {
    const tenant = await adminWithCompany(server, 'Directory Bench Co');
    await licenseUsers(server, tenant, bench.users + LOCAL_PEOPLE + 10);
    const call = <T>(path: string, body: unknown) => tenantCall<T>(server, tenant, path, body);
    const { sourceId } = await call<{ sourceId: string }>('/api/v1/manage/identity-source/create', {
      type: 'ldap',
      name: 'Bench directory',
      url: ldapUrl,
      startTls: false,
      verifyCertificate: true,
      bindDn: DIRECTORY.readerDn,
      bindPassword: DIRECTORY.readerPassword,
      userRootDn: `ou=users,${bench.dn}`,
      usernameAttribute: 'uid',
      uniqueIdAttribute: 'entryUUID',
      userFilter: '(objectClass=inetOrgPerson)',
      groupRootDn: `ou=groups,${bench.dn}`,
      groupFilter: '(objectClass=groupOfNames)',
      groupIdAttribute: 'cn',
      membershipAttribute: 'member',
      skipMfa: true,
    });

    /** A sync from its start call to its end, polled every 100 ms. */
    async function timedSync(): Promise<{ ms: number; run: Run }> {
      const started = performance.now();
      const { runId } = await call<{ runId: string }>('/api/v1/manage/identity-source/sync/start', {
        sourceId,
      });
      for (;;) {
        const run = await call<Run>('/api/v1/manage/identity-source/sync/run', { sourceId, runId });
        if (run.status === 'succeeded' || run.status === 'failed') {
          if (run.status === 'failed') throw new Error(`sync failed: ${JSON.stringify(run.errors)}`);
          return { ms: performance.now() - started, run };
        }
        await sleep(100);
      }
    }

    const first = await timedSync();
    console.log(`first sync: ${fmt(first.ms / 1000, 1)} s, ${JSON.stringify(first.run.counts)}`);
    const again = await timedSync();
    console.log(`no-change re-sync: ${fmt(again.ms / 1000, 1)} s, ${JSON.stringify(again.run.counts)}`);
    if (first.run.counts?.created !== bench.users) throw new Error(`expected ${bench.users} people created`);
    const changed = Object.entries(again.run.counts ?? {}).filter(([key, n]) => key !== 'unchanged' && n > 0);
    if (changed.length) throw new Error(`the re-sync changed something: ${JSON.stringify(changed)}`);

    for (let i = 0; i < LOCAL_PEOPLE; i++)
      await call('/api/v1/manage/user/create', {
        username: `local-bench-${i}`,
        password: LOCAL_PASSWORD,
        confirmPassword: LOCAL_PASSWORD,
        mustChangePassword: false,
      });
    const portal: RelyingParty = {
      clientId: 'tessera-portal',
      redirectUri: `${server.publicUrl}/portal/callback`,
    };
    const signIn = async (username: string, password: string) => {
      const interaction = await beginInteraction(server, portal);
      const started = performance.now();
      const response = await submitLogin(server, interaction, { username, password });
      await response.arrayBuffer();
      const ms = performance.now() - started;
      if (response.status !== 303)
        throw new Error(`${username}: expected 303 after a right password, got ${response.status}`);
      return ms;
    };
    const directory: number[] = [];
    const local: number[] = [];
    for (let i = 0; i < 10; i++) {
      await signIn(`bench${String(i + 1).padStart(5, '0')}`, DIRECTORY.peoplePassword);
      await signIn(`local-bench-${i % LOCAL_PEOPLE}`, LOCAL_PASSWORD);
    }
    for (let i = 0; i < SAMPLES; i++) {
      const person = `bench${String((i % bench.users) + 1).padStart(5, '0')}`;
      const ldap = () => signIn(person, DIRECTORY.peoplePassword).then((ms) => directory.push(ms));
      const own = () =>
        signIn(`local-bench-${i % LOCAL_PEOPLE}`, LOCAL_PASSWORD).then((ms) => local.push(ms));
      // Alternate which goes first, so that drift weighs on both.
      if (i % 2) {
        await ldap();
        await own();
      } else {
        await own();
        await ldap();
      }
    }
    const medianDirectory = percentile(directory, 50);
    const medianLocal = percentile(local, 50);
    const result = {
      storage: server.storage,
      people: bench.users,
      groups: bench.groups,
      firstSyncMs: first.ms,
      firstSyncCounts: first.run.counts,
      resyncMs: again.ms,
      signIns: SAMPLES,
      medianDirectoryMs: medianDirectory,
      medianLocalMs: medianLocal,
      p90DirectoryMs: percentile(directory, 90),
      p90LocalMs: percentile(local, 90),
      goals: {
        firstSyncUnder60s: first.ms < 60_000,
        resyncUnder15s: again.ms < 15_000,
        directoryWithin10ms: medianDirectory - medianLocal <= 10,
      },
    };
    console.log(
      `sign-in: directory median ${fmt(medianDirectory, 1)} ms (p90 ${fmt(result.p90DirectoryMs, 1)}), ` +
        `local median ${fmt(medianLocal, 1)} ms (p90 ${fmt(result.p90LocalMs, 1)}); ` +
        `difference ${fmt(medianDirectory - medianLocal, 1)} ms: ${verdict(result.goals.directoryWithin10ms)}`,
    );
    console.log(
      `sync under 60 s: ${verdict(result.goals.firstSyncUnder60s)}; re-sync under 15 s: ${verdict(result.goals.resyncUnder15s)}`,
    );
    console.log(`saved ${await saveResult('directory-sync', server.storage, result)}`);
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
