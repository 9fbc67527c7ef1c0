import type { MemberRole } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import {
  type CompanySafetySettings,
  type GeneralSafety,
  getSafetySettings,
  type MfaSafety,
  saveSafetyPart,
} from './safety.repo.ts';

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

  /**
   * The sequence of both updates: only the owner and administrators, the part as `prepare` makes it
   * (after the role check, so a refused person learns nothing about their input), then saved with
   * its audit event (`safety.<part>_update`, the stored part before, the new one after).
   */
  async function updatePart<P extends 'general' | 'mfa'>(
    actor: SafetyActor,
    companyId: string,
    part: P,
    prepare: () => CompanySafetySettings[P],
  ): Promise<CompanySafetySettings[P]> {
    if (!mayUpdate(actor.role)) throw new AppError('auth.forbidden');
    const next = prepare();
    return db.transaction().execute(async (trx) => {
      const before = (await getSafetySettings(trx, companyId))[part];
      await saveSafetyPart(trx, companyId, part, next);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: `safety.${part}_update`,
        targetType: 'company',
        targetId: companyId,
        before,
        after: next,
        ip: actor.ip,
      });
      return next;
    });
  }

  /** The request is already checked against the contract (ranges, password method). */
  const updateGeneral = async (actor: SafetyActor, companyId: string, input: GeneralSafety) => {
    // A caller that does not know the self-service reset switch leaves it as it is.
    const selfServiceReset = input.selfServiceReset ?? (await general(companyId)).selfServiceReset;
    return updatePart(actor, companyId, 'general', () => ({
      loginMethods: unique(input.loginMethods),
      password: { ...input.password, classes: unique(input.password.classes) },
      lockout: { ...input.lockout },
      selfServiceReset,
    }));
  };

  const updateMfa = (actor: SafetyActor, companyId: string, input: MfaSafety) =>
    updatePart(actor, companyId, 'mfa', () => {
      return { mode: input.mode, types: unique(input.types), lockout: { ...input.lockout } };
    });

  return { general, mfa, updateGeneral, updateMfa };
}

export type SafetyService = ReturnType<typeof createSafetyService>;
