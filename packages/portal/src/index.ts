import { fileURLToPath } from 'node:url';

export {
  type AppCredentialsPageInput,
  type AppOpenPageInput,
  type FormLaunchPageInput,
  type MyAppsPageInput,
  renderAppCredentialsPage,
  renderAppOpenPage,
  renderAppProblemPage,
  renderAutoPostPage,
  renderFormLaunchPage,
  renderMyAppsPage,
} from './app-pages.ts';
export {
  type CodeEntryPageInput,
  type CodeLink,
  type CodeRequestPageInput,
  renderCodeEntryPage,
  renderCodeRequestPage,
  type SentCodeFactors,
} from './code-pages.ts';
export {
  type AccountDevice,
  type AccountDevicesSection,
  type ExchangeSignInPageInput,
  renderDevicePasswordPage,
  renderExchangeSignInPage,
} from './device-pages.ts';
export { escapeHtml, html, SafeHtml } from './html.ts';
export {
  type AccountMfaSection,
  type BindFactorPageInput,
  type RecoveryCodesPageInput,
  renderBindFactorPage,
  renderRecoveryCodesPage,
  renderSecondFactorPage,
  type SecondFactorPageInput,
} from './mfa-pages.ts';
export { type PortalNavInput, portalNav } from './nav.ts';
export {
  type ConsentPageInput,
  type FrontChannelLogoutPageInput,
  type LogoutConfirmPageInput,
  renderAutoLogoutPage,
  renderConsentPage,
  renderFrontChannelLogoutPage,
  renderLogoutConfirmPage,
  renderSelectAccountPage,
  type SelectAccountPageInput,
} from './oidc-pages.ts';
export {
  type AccountPageInput,
  type ChangePasswordPageInput,
  type PageBrand,
  type PageContext,
  renderAccountPage,
  renderChangePasswordPage,
  renderErrorPage,
  renderLoggedOutPage,
  renderLogoutPage,
  renderSignInLinkPage,
  renderSignInPage,
  type SignInLinkPageInput,
  type SignInPageInput,
} from './pages.ts';
export {
  type PasskeyFormInput,
  type PasskeyRegisterPageInput,
  passkeyForm,
  renderPasskeyRegisterPage,
} from './passkey-pages.ts';
export { type OwnPasswordPageInput, renderOwnPasswordPage } from './password-pages.ts';
export { type PortalPhrases, portalPhrases } from './phrases/index.ts';
export { type ProfilePhrases, profilePhrases } from './phrases/profile.ts';
export {
  type AddressChannel,
  type AddressCodePageInput,
  type ProfileField,
  type ProfilePageInput,
  renderAddressCodePage,
  renderProfilePage,
  verifiedBadge,
} from './profile-pages.ts';
export {
  type ForgotPasswordPageInput,
  type ResetCodePageInput,
  type ResetPasswordPageInput,
  renderForgotPasswordPage,
  renderResetCodePage,
  renderResetPasswordPage,
} from './reset-pages.ts';
export {
  type AccountBinding,
  type AccountBindingsSection,
  renderAccountBindingsSection,
  type ScanButton,
  scanButtons,
} from './scan-pages.ts';
export {
  renderSignatureBindPage,
  type SignatureBindPageInput,
  type SignatureFactorView,
  type SignatureFormInput,
  signatureForm,
} from './signature-pages.ts';
export { type UpstreamButton, upstreamButtons } from './upstream-pages.ts';

/** Folder of the portal's static assets (stylesheet). */
export const portalAssetsDir = fileURLToPath(new URL('./assets/', import.meta.url));
