import { availableMfaTypes, type MemberRole } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { type GeneralSafety, getSafetySettings, type MfaSafety, saveSafetyPart } from './safety.repo.ts';

export interface SafetyActor {
  accountId: string;
  ip: string;
  role: MemberRole;
}

/** Only the company's owner and administrators change its safety; external administrators read it. */
const mayUpdate = (role: MemberRole) => role === 'owner' || role === 'admin';

const unique = <T>(values: readonly T[]) => [...new Set(values)];

export function createSafetyService(deps: { db: Db }) {
  const { db } = deps;

  const general = async (companyId: string) => (await getSafetySettings(db, companyId)).general;
  const mfa = async (companyId: string) => (await getSafetySettings(db, companyId)).mfa;

  /** The request is already checked against the contract (ranges, password method). */
  async function updateGeneral(actor: SafetyActor, companyId: string, input: GeneralSafety) {
    if (!mayUpdate(actor.role)) throw new AppError('auth.forbidden');
    const next: GeneralSafety = {
      loginMethods: unique(input.loginMethods),
      password: { ...input.password, classes: unique(input.password.classes) },
      lockout: { ...input.lockout },
    };
    return db.transaction().execute(async (trx) => {
      const before = (await getSafetySettings(trx, companyId)).general;
      await saveSafetyPart(trx, companyId, 'general', next);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'safety.general_update',
        targetType: 'company',
        targetId: companyId,
        before,
        after: next,
        ip: actor.ip,
      });
      return next;
    });
  }

  async function updateMfa(actor: SafetyActor, companyId: string, input: MfaSafety) {
    if (!mayUpdate(actor.role)) throw new AppError('auth.forbidden');
    const types = unique(input.types);
    const unavailable = types.filter((type) => !availableMfaTypes.includes(type));
    if (unavailable.length)
      throw new AppError('safety.mfa_type_unavailable', { type: unavailable.join(', ') });
    const next: MfaSafety = { mode: input.mode, types, lockout: { ...input.lockout } };
    return db.transaction().execute(async (trx) => {
      const before = (await getSafetySettings(trx, companyId)).mfa;
      await saveSafetyPart(trx, companyId, 'mfa', next);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'safety.mfa_update',
        targetType: 'company',
        targetId: companyId,
        before,
        after: next,
        ip: actor.ip,
      });
      return next;
    });
  }

  return { general, mfa, updateGeneral, updateMfa };
}

export type SafetyService = ReturnType<typeof createSafetyService>;
