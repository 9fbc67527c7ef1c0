import type { ScimGroupKind } from '@tessera/contract';
import { scimTokens } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { createExpiringSet } from '../../lib/expiring-set.ts';
import { newId } from '../../lib/ids.ts';
import { type Budget, spendBudgets } from '../../lib/rate-windows.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { ScimError } from './scim-errors.ts';
import * as repo from './scim-tokens.repo.ts';

/** What a SCIM request acts as: the company of its token, named in audit events `scim:<token name>`. */
export interface ScimCaller {
  companyId: string;
  tokenId: string;
  tokenName: string;
  groupsAs: ScimGroupKind;
  ip: string;
}

const TOKEN_PREFIX = 'tsc_';
/** In-memory blocks of addresses whose wrong-token budget is spent (bounded: many addresses cannot grow it). */
const MAX_BLOCKED = 10_000;
const BLOCK_MS = 10 * 60_000;

/**
 * Wrong tokens per source address: 20 in ten minutes, then the address's wrong tokens are refused
 * (429) without being counted again. A right token is always answered (256 random bits are not
 * guessed; the budget bounds the work and noise of guessing, as for client secrets).
 */
const budgetsOf = (ip: string): Budget[] => [{ key: `scim-auth:${ip}`, limit: 20, minutes: 10 }];

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function view(row: Awaited<ReturnType<typeof repo.findTokens>>[number]) {
  return {
    tokenId: row.id,
    name: row.name,
    groupsAs: row.groups_as,
    expiresAt: iso(row.expires_at),
    createdAt: row.created_at.toISOString(),
    lastUsedAt: iso(row.last_used_at),
    lastUsedIp: row.last_used_ip,
  };
}

export function createScimTokenService(deps: { db: Db; publicUrl: string }) {
  const { db } = deps;
  const blocked = createExpiringSet(MAX_BLOCKED);
  const baseUrlOf = (companyId: string) => `${deps.publicUrl}/scim/v2/${companyId}`;

  async function overview(companyId: string) {
    return {
      baseUrl: baseUrlOf(companyId),
      allowPasswords: await repo.allowsPasswords(db, companyId),
      list: (await repo.findTokens(db, companyId)).map(view),
    };
  }

  async function create(
    actor: { accountId: string; ip: string },
    companyId: string,
    input: { name: string; expiresInDays: number | null; groupsAs: ScimGroupKind },
  ) {
    const secret = `${TOKEN_PREFIX}${randomToken(32)}`;
    const id = newId();
    return db.transaction().execute(async (trx) => {
      if ((await repo.countTokens(trx, companyId)) >= scimTokens.scimLimits.tokensMax)
        throw new AppError('scim.tokens_too_many');
      const expiresAt =
        input.expiresInDays === null ? null : new Date(Date.now() + input.expiresInDays * 86_400_000);
      await repo.insertToken(trx, {
        id,
        companyId,
        name: input.name,
        tokenHash: sha256(secret),
        groupsAs: input.groupsAs,
        expiresAt,
      });
      const row = await repo.findToken(trx, companyId, id);
      if (!row) throw new AppError('scim.token_not_found');
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'scim.token_create',
        targetType: 'scim_token',
        targetId: id,
        after: { name: row.name, groupsAs: row.groups_as, expiresAt: iso(row.expires_at) },
        ip: actor.ip,
      });
      return { ...view(row), secret };
    });
  }

  async function revoke(actor: { accountId: string; ip: string }, companyId: string, tokenId: string) {
    return db.transaction().execute(async (trx) => {
      const row = await repo.findToken(trx, companyId, tokenId);
      if (!row) throw new AppError('scim.token_not_found');
      await repo.deleteToken(trx, companyId, tokenId);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'scim.token_revoke',
        targetType: 'scim_token',
        targetId: tokenId,
        before: { name: row.name, groupsAs: row.groups_as, expiresAt: iso(row.expires_at) },
        ip: actor.ip,
      });
      return { tokenId };
    });
  }

  async function setAllowPasswords(
    actor: { accountId: string; ip: string },
    companyId: string,
    allow: boolean,
  ) {
    return db.transaction().execute(async (trx) => {
      const before = await repo.allowsPasswords(trx, companyId);
      await repo.saveAllowPasswords(trx, companyId, allow);
      if (before !== allow)
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'scim.settings_update',
          targetType: 'company',
          targetId: companyId,
          before: { allowPasswords: before },
          after: { allowPasswords: allow },
          ip: actor.ip,
        });
      return { allowPasswords: allow };
    });
  }

  /**
   * The caller of a SCIM request: its bearer token must be a live token of the company in the
   * path. A token of another company is answered as a wrong one (401), so that the answer says
   * nothing of whether the company exists.
   */
  async function authenticate(
    authorization: string | undefined,
    companyId: string,
    ip: string,
  ): Promise<ScimCaller> {
    const secret =
      authorization && authorization.slice(0, 7).toLowerCase() === 'bearer '
        ? authorization.slice(7).trim()
        : '';
    if (!secret) throw new ScimError('scim.unauthorized');
    const row =
      secret.startsWith(TOKEN_PREFIX) && secret.length < 200
        ? await repo.findTokenByHash(db, sha256(secret))
        : undefined;
    if (!row || row.company_id !== companyId) {
      if (blocked.has(ip)) throw new ScimError('scim.rate_limited');
      if (!(await spendBudgets(db, budgetsOf(ip), 'add'))) blocked.add(ip, BLOCK_MS);
      throw new ScimError('scim.unauthorized');
    }
    await repo.noteTokenUse(db, row.id, ip);
    return { companyId, tokenId: row.id, tokenName: row.name, groupsAs: row.groups_as, ip };
  }

  return { overview, create, revoke, setAllowPasswords, authenticate, baseUrlOf };
}

export type ScimTokenService = ReturnType<typeof createScimTokenService>;
