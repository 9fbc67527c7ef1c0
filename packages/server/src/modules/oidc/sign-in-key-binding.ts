import { interpolate, type SignatureMfaType, serverPhrases, signatureMfaTypes } from '@tessera/contract';
import { portalPhrases, renderRecoveryCodesPage, renderSignatureBindPage } from '@tessera/portal';
import { AppError } from '../../lib/errors.ts';
import type { MfaService } from '../mfa/mfa.service.ts';
import type { MfaRequirement } from '../mfa/mfa-requirement.ts';
import { typedValues } from '../mfa/signature.portal.routes.ts';
import type { SignatureFactors } from '../mfa/signature-factors.service.ts';
import { INTERACTION_PATH } from './provider.ts';
import { requirementOfSignIn } from './sign-in-facts.ts';
import type { SignInStep, StepDone, StepRequest, StepView } from './sign-in-steps.ts';

/**
 * The bind_factor step when the policy asks for a key: it requires a second factor and allows
 * UKEY or soft-lock kinds but no code kind, so an authenticator app (OTP standing in) would be a
 * factor the company did not allow. The person binds a key there and then, as in the user
 * centre (signature.portal.routes.ts): the key (public key, KeyId, certificate), and its
 * signature of a single-use binding challenge tied to the interaction (proof of possession).
 * The signature proves the key, so the second_factor step is done with it; the first factor
 * comes with its recovery codes. A policy that allows a code kind keeps the OTP binding, and one
 * that allows passkeys only keeps OTP standing in (passkeys are added in the user centre).
 */

/** The key kinds the person binds at sign-in instead of an authenticator app (none: the OTP binding). */
export const keyBindingKinds = (requirement: MfaRequirement): SignatureMfaType[] =>
  requirement.mode === 'required' && requirement.otpStandsIn ? requirement.signature : [];

const subjectOf = (interactionId: string) => `interaction:${interactionId}`;

/**
 * The bind_factor step `otp` (bindFactorStep), with a key binding in its place whenever the
 * person's requirement names key kinds to bind (keyBindingKinds). Without the signature
 * service, the OTP step as it is.
 */
export function withKeyBinding(
  otp: SignInStep,
  deps: { mfa: MfaService; signatures?: SignatureFactors },
): SignInStep {
  return deps.signatures ? keyBindingStep(otp, deps.mfa, deps.signatures) : otp;
}

function keyBindingStep(otp: SignInStep, mfa: MfaService, signatures: SignatureFactors): SignInStep {
  /** The kinds to bind at this sign-in; none when it has no interaction to tie a challenge to. */
  const kindsOf = async (request: Pick<StepRequest, 'account' | 'mfaRequested' | 'interactionId'>) =>
    request.interactionId ? keyBindingKinds(await requirementOfSignIn(mfa, request.account, request)) : [];
  /** What the person chose, when it is one of the kinds; else the first. */
  const chosen = (kinds: SignatureMfaType[], value: string | undefined) =>
    kinds.find((kind) => kind === value) ?? (kinds[0] as SignatureMfaType);

  async function render(
    page: Parameters<SignInStep['render']>[0],
    view: StepView,
    kinds: SignatureMfaType[],
  ) {
    const interactionId = view.interactionId ?? '';
    // A refused form comes back with its kind and what was typed (not the signature).
    const type = chosen(kinds, view.refused?.type ?? view.chosenKind);
    const typed = view.refused ?? {};
    const { challenge } = await signatures.newChallenge(view.account.id, 'bind', subjectOf(interactionId));
    return renderSignatureBindPage(page, {
      action: view.action,
      abortAction: view.abortAction,
      csrfToken: view.csrfToken,
      username: view.account.username,
      type,
      challenge,
      values: typed,
      error: view.error,
      kinds: kinds.map((kind) => ({
        type: kind,
        href: `${INTERACTION_PATH}/${encodeURIComponent(interactionId)}?kind=${kind}`,
      })),
    });
  }

  return {
    name: otp.name,
    applies: otp.applies,
    // The kind and the key typed (the signature and the challenge are not kept).
    keptOnRefusal: (form) => ({ type: form.type, ...typedValues(form) }),
    async render(page, view) {
      const kinds = await kindsOf(view);
      return kinds.length ? render(page, view, kinds) : otp.render(page, view);
    },
    async submit(request, form) {
      const kinds = await kindsOf(request);
      if (!kinds.length) return otp.submit(request, form);
      return submitKey(request, form, kinds);
    },
  };

  /** Binds the submitted key: done (with the second factor) when its signature of the interaction's challenge verifies. */
  async function submitKey(
    { account, lang, ip, interactionId }: StepRequest,
    form: Record<string, string | undefined>,
    kinds: SignatureMfaType[],
  ): Promise<string | StepDone> {
    const type = signatureMfaTypes.find((kind) => kind === form.type);
    // A kind the policy does not allow (an old page, a changed policy): the page again, nothing bound.
    if (!type || !kinds.includes(type)) return portalPhrases[lang].signature.rejected;
    let bound: Awaited<ReturnType<SignatureFactors['bindOwn']>>;
    try {
      bound = await signatures.bindOwn(
        account,
        {
          type,
          ...typedValues(form),
          challenge: form.challenge?.slice(0, 128),
          signature: form.signature,
        },
        subjectOf(interactionId ?? ''),
        ip,
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return interpolate(serverPhrases[lang].errors[error.reason], error.params);
    }
    if (!bound) return portalPhrases[lang].signature.rejected;
    const codes = bound.recoveryCodes;
    return {
      completes: ['second_factor'],
      // RFC 8176: a UKEY is a hardware-bound key, a soft lock a software-secured one.
      amr: [type === 'soft_lock' ? 'swk' : 'hwk'],
      page: codes?.length
        ? (page, view) => renderRecoveryCodesPage(page, { codes, continueAction: view.continueAction })
        : undefined,
    };
  }
}
