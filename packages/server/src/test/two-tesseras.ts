import { companyMember, grantLicense, ownerWithCompany, startTestApp, type TestContext } from './harness.ts';

type Owner = Awaited<ReturnType<typeof ownerWithCompany>>;

export interface UpstreamAndDownstream {
  /** The company's identity provider. */
  upstream: TestContext;
  /** The Tessera whose identity source trusts the upstream. */
  downstream: TestContext;
  upOwner: Owner;
  downOwner: Owner;
  /** A person of the upstream's company, with an email address and a display name. */
  alice: { id: string; username: string; password: string };
  close(): Promise<void>;
}

/**
 * Two Tessera servers for the identity source tests (issue 33), each listening, with a licence
 * for applications and a company and its owner; the upstream's company has Alice, whose address
 * is of `emailDomain`.
 */
export async function startUpstreamAndDownstream(options: {
  emailDomain: string;
  downstream?: Parameters<typeof startTestApp>[0];
}): Promise<UpstreamAndDownstream> {
  const [upstream, downstream] = await Promise.all([
    startTestApp({ listen: true }),
    startTestApp({ listen: true, ...options.downstream }),
  ]);
  await Promise.all([grantLicense(upstream, { app: 10 }), grantLicense(downstream, { app: 10 })]);
  const [upOwner, downOwner] = await Promise.all([
    ownerWithCompany(upstream, 'up-owner', 'Upstream Corp'),
    ownerWithCompany(downstream, 'down-owner', 'Downstream Corp'),
  ]);
  const alice = await companyMember(upstream, upOwner, 'alice');
  await upstream.database.db
    .updateTable('accounts')
    .set({ email: `alice@${options.emailDomain}`, display_name: 'Alice Upstream' })
    .where('id', '=', alice.id)
    .execute();
  return {
    upstream,
    downstream,
    upOwner,
    downOwner,
    alice,
    async close() {
      await Promise.all([upstream.close(), downstream.close()]);
    },
  };
}
