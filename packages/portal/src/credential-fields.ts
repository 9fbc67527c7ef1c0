import { html, type SafeHtml } from './html.ts';

/**
 * The user name and password fields of a form that saves someone's credentials for another
 * system (a form-fill app, Exchange): the password is never shown back, and when one is saved
 * the field may stay empty to keep it. Messages are already localised.
 */
export function credentialFields(input: {
  idPrefix: string;
  labels: { username: string; password: string; passwordKept: string };
  username: string;
  passwordSaved: boolean;
  errors?: { username?: string; password?: string };
}): SafeHtml {
  const { idPrefix, labels, errors } = input;
  const error = (message: string | undefined, id: string) =>
    message ? html`<p class="alert" role="alert" id="${id}">${message}</p>` : '';
  return html`<label for="${idPrefix}-username">${labels.username}</label>
<input id="${idPrefix}-username" name="username" autocomplete="off" required maxlength="256" value="${input.username}"${
    errors?.username ? html` aria-invalid="true" aria-describedby="username-error"` : ''
  }>
${error(errors?.username, 'username-error')}
<label for="${idPrefix}-password">${labels.password}</label>
<input id="${idPrefix}-password" name="password" type="password" autocomplete="new-password" maxlength="256"${
    input.passwordSaved ? '' : html` required`
  }${errors?.password ? html` aria-invalid="true" aria-describedby="password-error"` : ''}>
${input.passwordSaved ? html`<p class="muted small">${labels.passwordKept}</p>` : ''}
${error(errors?.password, 'password-error')}`;
}
