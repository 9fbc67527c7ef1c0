import { interpolate } from '@tessera/contract';
import { portalPhrases, renderSecondFactorPage } from '@tessera/portal';
import { type Fido2Service, parseCredential } from '../mfa/fido2.service.ts';
import type { MfaService } from '../mfa/mfa.service.ts';
import type { SignatureCheck, SignatureFactors } from '../mfa/signature-factors.service.ts';
import { CODE_AMR } from './code-sign-in.ts';
import { interactionSubject } from './provider.ts';
import type { SentCodeFactor } from './sign-in-code-factor.ts';
import { boundFactorsOf, hasBoundFactor, requirementOfSignIn } from './sign-in-facts.ts';
import type { SignInStep } from './sign-in-steps.ts';

/**
 * The second factor: asked when the policy requires it, or when it is optional and the person
 * has bound a factor of an allowed kind (or has a verified address of an allowed code kind:
 * sign-in-code-factor.ts). A code of one of those factors or a recovery code.
 */
export function secondFactorStep(deps: {
  mfa: MfaService;
  fido2?: Fido2Service;
  signatures?: SignatureFactors;
  sentCodes?: SentCodeFactor;
}): SignInStep {
  const { mfa, fido2, signatures, sentCodes } = deps;
  /** The kinds the person may answer with: the allowed OTP kinds, passkeys and keys when allowed. */
  const kindsOf = (requirement: Awaited<ReturnType<MfaService['requirementFor']>>) => [
    ...requirement.types,
    ...(requirement.fido2 && fido2 ? ['fido2'] : []),
    ...(signatures ? requirement.signature : []),
  ];
  return {
    name: 'second_factor',
    // A code, a passkey or a key proves the person; none of them changes the credentials.
    keepsCredentials: true,
    async applies(account, context, facts) {
      const requirement = await requirementOfSignIn(mfa, account, context, facts);
      if (requirement.mode === 'required') return true;
      if (requirement.mode === 'off') return false;
      if (await hasBoundFactor(mfa, account.id, kindsOf(requirement), facts)) return true;
      return Boolean(sentCodes && (await sentCodes.channels(account, requirement, context?.amr)).length);
    },
    keptOnRefusal: (form) =>
      form.sentCodeId ? { sentCodeId: form.sentCodeId.slice(0, 64), sentChannel: form.sentChannel } : {},
    async render(page, view) {
      const requirement = await requirementOfSignIn(mfa, view.account, view, view.facts);
      const factors = await boundFactorsOf(mfa, view.account.id, kindsOf(requirement), view.facts);
      const passkey =
        fido2 && view.interactionId && factors.some((f) => f.type === 'fido2')
          ? {
              options: JSON.stringify(
                await fido2.authenticationOptions(
                  'second_factor',
                  interactionSubject(view.interactionId),
                  view.account.id,
                ),
              ),
            }
          : undefined;
      const keys = factors.filter((f) => (requirement.signature as string[]).includes(f.type));
      const signature =
        signatures && view.interactionId && keys.length
          ? {
              challenge: (
                await signatures.newChallenge(
                  view.account.id,
                  'second_factor',
                  interactionSubject(view.interactionId),
                )
              ).challenge,
              factors: keys.map((f) => ({ factorId: f.id, type: f.type, name: f.name })),
            }
          : undefined;
      return renderSecondFactorPage(page, {
        action: view.action,
        abortAction: view.abortAction,
        csrfToken: view.csrfToken,
        username: view.account.username,
        factors: factors.map((f) => ({ factorId: f.id, type: f.type, name: f.name })),
        error: view.error,
        passkey,
        signature,
        sentCodes: await sentCodes?.view(view.account, requirement, view),
      });
    },
    async submit({ account, lang, ip, userAgent, clientId, interactionId, mfaRequested, amr, facts }, form) {
      const requirement = await requirementOfSignIn(mfa, account, { mfaRequested }, facts);
      const credential = form.credential !== undefined ? parseCredential(form.credential) : undefined;
      const passkey =
        form.credential !== undefined
          ? async () => {
              if (!fido2 || !requirement.fido2 || !credential || !interactionId) return false;
              const assertion = await fido2.verifyAssertion(
                credential,
                'second_factor',
                interactionSubject(interactionId),
                account.id,
              );
              if (!assertion.ok && assertion.cause === 'passkey_cloned')
                await fido2.logFailure(account, 'passkey_cloned', { ip, userAgent, clientId });
              return assertion.ok;
            }
          : undefined;
      /** The key's verdict, kept for the amr of the sign-in. */
      let signedWith: SignatureCheck | undefined;
      const checkSignature = async (): Promise<SignatureCheck> => {
        signedWith =
          signatures && interactionId
            ? await signatures.check(
                account,
                {
                  factorId: form.signatureFactorId?.slice(0, 64),
                  challenge: form.challenge,
                  signature: form.signature,
                },
                interactionSubject(interactionId),
                requirement.signature,
              )
            : { ok: false, cause: 'signature_failed' };
        return signedWith;
      };
      const signature = form.signature !== undefined ? checkSignature : undefined;
      /** The channel of a right code sent by email or SMS, for the amr of the sign-in. */
      let sentBy: string | undefined;
      const sentCode =
        form.sentCodeId !== undefined
          ? async () => {
              if (!sentCodes) return false;
              const checked = await sentCodes.check(account, requirement, {
                codeId: form.sentCodeId?.slice(0, 64) ?? '',
                code: form.code?.slice(0, 16) ?? '',
                amr,
              });
              if (checked.ok && checked.channel) sentBy = CODE_AMR[checked.channel];
              return checked.ok;
            }
          : undefined;
      const result = await mfa.verifySecondFactor(
        account,
        {
          factorId: form.factorId?.slice(0, 64),
          code: form.code?.slice(0, 16),
          recoveryCode: form.recoveryCode?.slice(0, 64),
          passkey,
          signature,
          sentCode,
          // Read with the account at the start of this request (sign-in-steps.routes.ts).
          lockedUntil: account.mfa_locked_until,
        },
        requirement,
        { ip, userAgent, clientId },
      );
      // RFC 8176: a passkey or UKEY is a hardware-bound key, a soft lock a software-secured key;
      // codes (authenticator or recovery) are one-time passwords.
      if (result.ok) {
        if (result.via === 'sent_code' && sentBy) return { amr: [sentBy] };
        if (result.via === 'signature' && signedWith?.ok)
          return { amr: [signedWith.type === 'soft_lock' ? 'swk' : 'hwk'] };
        return { amr: [result.via === 'passkey' ? 'hwk' : 'otp'] };
      }
      const t = portalPhrases[lang].mfa;
      if (result.cause === 'mfa_locked') {
        const until = (result.lockedUntil ?? new Date()).toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-GB');
        return interpolate(t.locked, { until });
      }
      if (result.cause === 'signature_failed') return portalPhrases[lang].signature.rejected;
      if (result.cause === 'certificate_invalid') return portalPhrases[lang].signature.certificateInvalid;
      return t.wrongCode;
    },
  };
}
