import { randomBytes } from 'node:crypto';
import {
  type Language,
  RADIUS_CHALLENGE_SECONDS,
  RADIUS_LOG_CLIENT_PREFIX,
  serverPhrases,
} from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { sha256 } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import { type MfaRequirement, type MfaService, OTP_TYPES } from '../mfa/mfa.service.ts';
import { requirementOfCompany } from '../mfa/mfa-requirement.ts';
import { mergeSafety } from '../safety/safety.repo.ts';
import { insertLoginEvent, type LoginFailureCause } from '../signin/login-events.repo.ts';
import type { SignInService } from '../signin/signin.service.ts';
import type { OneTimeCodes } from '../verification/one-time-codes.ts';
import * as repo from './radius.repo.ts';
import { type Answer, code } from './radius-packet.ts';

/**
 * Who a RADIUS request is, once its client is known and its Message-Authenticator checked:
 * PAP through the one sign-in pipeline (budgets, lock-out, login events), who may use the
 * client, then the company's second factor: an Access-Challenge asking for the code (State,
 * single use, RADIUS_CHALLENGE_SECONDS), or the code typed after the password (per client).
 */

export interface KnownClient {
  id: string;
  companyId: string;
  name: string;
  access: 'all' | 'restricted';
  otpMode: 'challenge' | 'appended';
  /** In challenge mode: people without an authenticator app but with a phone get the code by SMS. */
  smsCodes: boolean;
  language: Language;
}

export interface PapRequest {
  client: KnownClient;
  /** The network device's address (the request's source). */
  sourceIp: string;
  username: string | null;
  password: Buffer | null;
  state: Buffer | null;
  nasIp: string | null;
  callingStationId: string | null;
}

const CODE_LENGTH = 6;
const accept: Answer = { code: code.accessAccept };
const reject: Answer = { code: code.accessReject };

export interface RadiusAuthenticatorDeps {
  db: Db;
  accounts: AccountsRepo;
  signIn: SignInService;
  mfa: MfaService;
  /** Codes sent by SMS for clients that send them (absent: no client does). */
  codes?: Pick<OneTimeCodes, 'issue' | 'verify'>;
}

export function createRadiusAuthenticator(deps: RadiusAuthenticatorDeps) {
  const { db, signIn, mfa } = deps;

  const eventOf = (request: PapRequest) => ({
    clientId: `${RADIUS_LOG_CLIENT_PREFIX}${request.client.id}`,
    ip: request.sourceIp,
    userAgent: null,
    companyId: request.client.companyId,
    nas: { ip: request.nasIp, callingStationId: request.callingStationId },
  });

  const logFailure = (request: PapRequest, account: Account | undefined, cause: LoginFailureCause) =>
    insertLoginEvent(db, {
      ...eventOf(request),
      accountId: account?.id ?? null,
      identifier: account?.username ?? request.username ?? '',
      result: 'failure',
      failureCause: cause,
    });

  /**
   * Whether the company asks this person for a second factor here, and which code kinds they
   * have. `access`: the company's settings and the person's role, when read already.
   *
   * A RADIUS password field carries only a code: passkeys and keys cannot be given through it.
   * Where the policy allows no code kind (passkeys or keys only), an authenticator app the
   * person bound before keeps answering here (OTP stands in, as at web sign-in), so that the
   * password alone never passes for an account that has a factor; without one the request is
   * refused with a Reply-Message that says why.
   */
  async function secondFactorOf(account: Account, companyId: string, access?: repo.ClientAccess) {
    const policy = access
      ? requirementOfCompany(mergeSafety(null, access.mfa).mfa, access.role)
      : await mfa.requirementIn(account, companyId);
    if (policy.mode === 'off') return { needed: false as const, requirement: policy };
    const requirement: MfaRequirement = policy.types.length
      ? policy
      : { ...policy, types: [...OTP_TYPES], otpStandsIn: true };
    const allowed = [...requirement.types, ...requirement.signature, ...(requirement.fido2 ? ['fido2'] : [])];
    const bound = await mfa.boundFactors(account.id, allowed);
    const codes = bound.filter((f) => (requirement.types as string[]).includes(f.type));
    const needed = requirement.mode === 'required' || bound.length > 0;
    return { needed, requirement, bound: bound.length, codes: codes.length };
  }

  /**
   * In `appended` mode the last six digits of the password field are the code, for people asked
   * for one. Whether someone is asked is known only from their account, so it is looked up first;
   * an identifier that names no account keeps its whole password (and fails like any other).
   */
  async function splitAppended(request: PapRequest, password: string) {
    if (request.client.otpMode !== 'appended' || !request.username) return { password, code: null };
    const match = new RegExp(`^(.+)(\\d{${CODE_LENGTH}})$`).exec(password);
    const account = await deps.accounts.findAccountByIdentifier(request.username.trim());
    if (!match || !account) return { password, code: null };
    const second = await secondFactorOf(account, request.client.companyId);
    return second.needed ? { password: match[1] ?? '', code: match[2] ?? '' } : { password, code: null };
  }

  async function verifyCode(
    request: PapRequest,
    account: Account,
    requirement: MfaRequirement,
    given: string,
  ) {
    const result = await mfa.verifySecondFactor(
      account,
      /^[a-z0-9]{5}-?[a-z0-9]{5}$/i.test(given) && !/^\d+$/.test(given)
        ? { recoveryCode: given }
        : { code: given },
      requirement,
      eventOf(request),
    );
    return result.ok ? accept : reject;
  }

  /** The answer to an Access-Challenge's reply: the State names the person; the password field holds the code. */
  async function answerChallenge(request: PapRequest, state: Buffer, given: string): Promise<Answer> {
    const claimed = await repo.claimChallenge(db, sha256(state.toString('base64')), request.client.id);
    const account = claimed ? await deps.accounts.findAccountById(claimed.account_id) : undefined;
    const sameUser = claimed && request.username?.trim().toLowerCase() === claimed.username.toLowerCase();
    if (!claimed || !account || !sameUser || claimed.expires_at.getTime() <= Date.now()) {
      await logFailure(request, account, 'challenge_expired');
      return reject;
    }
    const { requirement } = await secondFactorOf(account, request.client.companyId);
    if (claimed.code_id) return verifySentCode(request, account, requirement, claimed.code_id, given);
    return verifyCode(request, account, requirement, given);
  }

  /** The answer to a challenge whose code went by SMS: the code's own tries, and the MFA lock. */
  async function verifySentCode(
    request: PapRequest,
    account: Account,
    requirement: MfaRequirement,
    codeId: string,
    given: string,
  ): Promise<Answer> {
    const codes = deps.codes;
    if (!codes) return reject;
    const sentCode = async () => {
      try {
        const verified = await codes.verify({ codeId, purpose: 'radius', code: given });
        return verified.accountId === account.id;
      } catch (error) {
        if (error instanceof AppError) return false;
        throw error;
      }
    };
    const result = await mfa.verifySecondFactor(account, { sentCode }, requirement, eventOf(request));
    return result.ok ? accept : reject;
  }

  /**
   * An Access-Challenge whose code goes by SMS (a client setting) to a person with no
   * authenticator app but a phone. A send that fails is a reject that says so; nothing is retried.
   */
  async function challengeBySms(request: PapRequest, account: Account): Promise<Answer | null> {
    const phone = account.phone?.trim();
    if (!deps.codes || !request.client.smsCodes || request.client.otpMode !== 'challenge' || !phone)
      return null;
    const replies = serverPhrases[request.client.language].radius;
    let codeId: string;
    try {
      codeId = (
        await deps.codes.issue({
          companyId: request.client.companyId,
          accountId: account.id,
          purpose: 'radius',
          channel: 'sms',
          address: phone,
          lang: request.client.language,
        })
      ).codeId;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      await logFailure(request, account, 'mfa_unavailable');
      const wait = error.reason === 'code.resend_wait';
      const replyMessage = wait
        ? replies.smsWait.replace('{seconds}', String(error.params.seconds))
        : replies.smsFailed;
      return { ...reject, replyMessage };
    }
    const state = await newChallenge(request, account, codeId);
    return {
      code: code.accessChallenge,
      state,
      replyMessage: replies.smsPrompt.replace('{phone}', `***${phone.slice(-4)}`),
    };
  }

  async function newChallenge(request: PapRequest, account: Account, codeId: string | null) {
    const state = randomBytes(32);
    await repo.insertChallenge(db, {
      state_hash: sha256(state.toString('base64')),
      client_id: request.client.id,
      account_id: account.id,
      username: request.username?.trim() ?? account.username,
      expires_at: new Date(Date.now() + RADIUS_CHALLENGE_SECONDS * 1000),
      code_id: codeId,
    });
    return state;
  }

  async function authenticate(request: PapRequest): Promise<Answer> {
    const password = request.password?.toString('utf8') ?? '';
    if (request.state) return answerChallenge(request, request.state, password);
    const split = await splitAppended(request, password);
    // Read once the password is right: who may use the client, with the role and MFA settings.
    const checked: { access?: repo.ClientAccess } = {};
    const result = await signIn.signInWithPassword({
      identifier: request.username ?? '',
      password: split.password,
      ...eventOf(request),
      deviceId: null,
      // The device speaks for many people: budgets count each calling station (or the device).
      budgetAddress: request.callingStationId
        ? `radius:${request.client.id}:${request.callingStationId}`
        : request.sourceIp,
      authorize: async (account) => {
        checked.access = await repo.clientAccessOf(
          db,
          { id: request.client.id, company_id: request.client.companyId, access: request.client.access },
          account.id,
        );
        return checked.access?.allowed ? null : 'radius_not_allowed';
      },
    });
    if (!result.ok) return reject;
    const { account } = result;
    const second = await secondFactorOf(account, request.client.companyId, checked.access);
    if (!second.needed) return accept;
    const replies = serverPhrases[request.client.language].radius;
    if (!second.codes) {
      const bySms = await challengeBySms(request, account);
      if (bySms) return bySms;
      // Passkeys and keys cannot be given through a RADIUS password field.
      const cause = second.bound ? 'mfa_unavailable' : 'mfa_not_bound';
      await logFailure(request, account, cause);
      const replyMessage = second.requirement.otpStandsIn
        ? replies.factorKeysOnly
        : second.bound
          ? replies.factorCodeNeeded
          : replies.factorNotBound;
      return { ...reject, replyMessage };
    }
    if (request.client.otpMode === 'appended')
      return verifyCode(request, account, second.requirement, split.code ?? '');
    return {
      code: code.accessChallenge,
      state: await newChallenge(request, account, null),
      replyMessage: replies.challengePrompt,
    };
  }

  return { authenticate };
}

export type RadiusAuthenticator = ReturnType<typeof createRadiusAuthenticator>;
