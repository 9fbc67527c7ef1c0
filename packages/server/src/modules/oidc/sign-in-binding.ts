import { interpolate, type SignatureMfaType, serverPhrases, signatureMfaTypes } from '@tessera/contract';
import {
  type PageContext,
  portalPhrases,
  renderPasskeyRegisterPage,
  renderRecoveryCodesPage,
  renderSignatureBindPage,
} from '@tessera/portal';
import { AppError } from '../../lib/errors.ts';
import { type Fido2Service, parseCredential } from '../mfa/fido2.service.ts';
import type { MfaService } from '../mfa/mfa.service.ts';
import type { MfaRequirement } from '../mfa/mfa-requirement.ts';
import { typedValues } from '../mfa/signature.portal.routes.ts';
import type { SignatureFactors } from '../mfa/signature-factors.service.ts';
import { INTERACTION_PATH, interactionSubject } from './provider.ts';
import { requirementOfSignIn } from './sign-in-facts.ts';
import type { SignInStep, StepDone, StepRequest, StepView } from './sign-in-steps.ts';

/**
 * The bind_factor step when the policy asks for a passkey or a key: it requires a second factor
 * and allows passkeys (FIDO2), UKEY or soft-lock kinds but no code kind, so an authenticator app
 * (OTP standing in) would be a factor the company did not allow. The person binds one of the
 * allowed kinds there and then, as in the user centre:
 * - a passkey: the browser creates it for the registration options of the page, whose challenge
 *   is tied to the interaction (fido2.portal.routes.ts does the same for the portal session);
 * - a key (public key, KeyId, certificate) and its signature of a single-use binding challenge
 *   tied to the interaction, proof of possession (signature.portal.routes.ts).
 * The new factor answered a challenge of this sign-in, so the second_factor step is done with
 * it; the first factor comes with its recovery codes. A policy that allows a code kind keeps the
 * OTP binding.
 */

/** A kind the person may bind at sign-in instead of an authenticator app. */
export type BindingKind = 'fido2' | SignatureMfaType;

/** The kinds the person binds at sign-in instead of an authenticator app (none: the OTP binding). */
export const bindingKinds = (requirement: MfaRequirement): BindingKind[] =>
  requirement.mode === 'required' && requirement.otpStandsIn
    ? [...(requirement.fido2 ? (['fido2'] as const) : []), ...requirement.signature]
    : [];

interface BindingDeps {
  mfa: MfaService;
  fido2?: Fido2Service;
  signatures?: SignatureFactors;
}

/**
 * The bind_factor step `otp` (bindFactorStep), with a passkey or key binding in its place
 * whenever the person's requirement names such kinds (bindingKinds). A kind whose service the
 * server lacks is not offered; without any, the OTP step as it is.
 */
export function withFactorBinding(otp: SignInStep, deps: BindingDeps): SignInStep {
  const { mfa, fido2, signatures } = deps;
  /** The kinds to bind at this sign-in; none when it has no interaction to tie a challenge to. */
  const kindsOf = async (request: Pick<StepRequest, 'account' | 'mfaRequested' | 'interactionId'>) => {
    if (!request.interactionId) return [];
    const kinds = bindingKinds(await requirementOfSignIn(mfa, request.account, request));
    return kinds.filter((kind) => (kind === 'fido2' ? fido2 : signatures));
  };
  /** What the person chose, when it is one of the kinds; else the first. */
  const chosen = (kinds: BindingKind[], value: string | undefined) =>
    kinds.find((kind) => kind === value) ?? (kinds[0] as BindingKind);

  async function render(page: PageContext, view: StepView, kinds: BindingKind[]) {
    const interactionId = view.interactionId ?? '';
    // A refused form comes back with its kind and what was typed (not the signature).
    const type = chosen(kinds, view.refused?.type ?? view.chosenKind);
    const links = kinds.map((kind) => ({
      type: kind,
      href: `${INTERACTION_PATH}/${encodeURIComponent(interactionId)}?kind=${kind}`,
    }));
    const common = {
      action: view.action,
      abortAction: view.abortAction,
      csrfToken: view.csrfToken,
      username: view.account.username,
      error: view.error,
      kinds: links,
    };
    if (type === 'fido2' && fido2) {
      const options = await fido2.registrationOptions(view.account, interactionSubject(interactionId));
      return renderPasskeyRegisterPage(page, { ...common, options: JSON.stringify(options) });
    }
    const { challenge } = await (signatures as SignatureFactors).newChallenge(
      view.account.id,
      'bind',
      interactionSubject(interactionId),
    );
    return renderSignatureBindPage(page, {
      ...common,
      type: type as SignatureMfaType,
      challenge,
      values: view.refused ?? {},
    });
  }

  return {
    name: otp.name,
    applies: otp.applies,
    // The kind and the key typed (the signature, the challenge and a passkey's answer are not kept).
    keptOnRefusal: (form) => ({
      type: form.credential !== undefined ? 'fido2' : form.type,
      ...typedValues(form),
    }),
    async render(page, view) {
      const kinds = await kindsOf(view);
      return kinds.length ? render(page, view, kinds) : otp.render(page, view);
    },
    async submit(request, form) {
      const kinds = await kindsOf(request);
      if (!kinds.length) return otp.submit(request, form);
      if (form.credential !== undefined) {
        return kinds.includes('fido2') && fido2
          ? submitPasskey(fido2, request, form.credential)
          : portalPhrases[request.lang].passkey.rejected;
      }
      return signatures
        ? submitKey(signatures, request, form, kinds)
        : portalPhrases[request.lang].signature.rejected;
    },
  };
}

/** The recovery codes page of a first factor, when it came with them. */
export const codesPage = (codes: string[] | null | undefined): StepDone['page'] =>
  codes?.length
    ? (page, view) => renderRecoveryCodesPage(page, { codes, continueAction: view.continueAction })
    : undefined;

/** Binds the passkey the browser created: done (with the second factor) when it answers the interaction's challenge. */
async function submitPasskey(
  fido2: Fido2Service,
  { account, lang, ip, interactionId }: StepRequest,
  answer: string,
): Promise<string | StepDone> {
  const credential = parseCredential(answer);
  const bound =
    credential &&
    (await fido2.finishRegistration(account, interactionSubject(interactionId ?? ''), credential, ip));
  if (!bound) return portalPhrases[lang].passkey.rejected;
  // RFC 8176: a passkey is a hardware-bound key.
  return { completes: ['second_factor'], amr: ['hwk'], page: codesPage(bound.recoveryCodes) };
}

/** Binds the submitted key: done (with the second factor) when its signature of the interaction's challenge verifies. */
async function submitKey(
  signatures: SignatureFactors,
  { account, lang, ip, interactionId }: StepRequest,
  form: Record<string, string | undefined>,
  kinds: BindingKind[],
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
      interactionSubject(interactionId ?? ''),
      ip,
    );
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return interpolate(serverPhrases[lang].errors[error.reason], error.params);
  }
  if (!bound) return portalPhrases[lang].signature.rejected;
  // RFC 8176: a UKEY is a hardware-bound key, a soft lock a software-secured one.
  return {
    completes: ['second_factor'],
    amr: [type === 'soft_lock' ? 'swk' : 'hwk'],
    page: codesPage(bound.recoveryCodes),
  };
}
