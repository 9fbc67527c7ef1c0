// Passkey ceremonies of the portal's forms (see passkey-pages.ts). No build step: plain ES2020.
(() => {
  const toBytes = (text) => {
    const base64 = text
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(text.length / 4) * 4, '=');
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  };
  const toText = (buffer) => {
    if (!buffer) return undefined;
    let binary = '';
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  };
  const withIds = (list) => (list || []).map((c) => ({ ...c, id: toBytes(c.id) }));

  // What the server reads of a credential (PublicKeyCredential.toJSON, which not every browser
  // has); `response` holds the fields of the ceremony (attestation or assertion).
  const asJson = (credential, response) => ({
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response,
  });

  async function create(options) {
    const credential = await navigator.credentials.create({
      publicKey: {
        ...options,
        challenge: toBytes(options.challenge),
        user: { ...options.user, id: toBytes(options.user.id) },
        excludeCredentials: withIds(options.excludeCredentials),
      },
    });
    const response = credential.response;
    return asJson(credential, {
      clientDataJSON: toText(response.clientDataJSON),
      attestationObject: toText(response.attestationObject),
      transports: response.getTransports ? response.getTransports() : [],
    });
  }

  async function get(options) {
    const credential = await navigator.credentials.get({
      publicKey: {
        ...options,
        challenge: toBytes(options.challenge),
        allowCredentials: withIds(options.allowCredentials),
      },
    });
    const response = credential.response;
    return asJson(credential, {
      clientDataJSON: toText(response.clientDataJSON),
      authenticatorData: toText(response.authenticatorData),
      signature: toText(response.signature),
      userHandle: toText(response.userHandle),
    });
  }

  for (const form of document.querySelectorAll('form[data-webauthn]')) {
    if (form.dataset.ready) continue;
    form.dataset.ready = '1';
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const error = form.querySelector('[data-webauthn-error]');
      if (error) error.hidden = true;
      try {
        if (!window.PublicKeyCredential) throw new Error('WebAuthn is not available');
        const options = JSON.parse(form.dataset.options);
        const result = form.dataset.webauthn === 'create' ? await create(options) : await get(options);
        form.querySelector('input[name="credential"]').value = JSON.stringify(result);
        form.submit();
      } catch (failure) {
        console.warn('passkey', failure);
        if (error) error.hidden = false;
      }
    });
  }
})();
