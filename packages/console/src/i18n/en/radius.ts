/** RADIUS (/safety-management/radius): the server and the company's RADIUS clients. */
export const radius = {
  server: {
    title: 'RADIUS server',
    hint: 'VPN gateways, Wi-Fi controllers and network devices sign people in with their Tessera password (PAP), then the company’s second factor. Every request must carry a Message-Authenticator; requests of unknown clients are dropped.',
    address: 'Address',
    port: 'UDP port {{port}}',
    off: 'Off on this installation',
    offHint:
      'The server is started with TESSERA_RADIUS_PORT=off: clients can be prepared, but nothing answers them.',
    challenge: 'Verification code',
    challengeSeconds: 'An Access-Challenge waits {{seconds}} seconds for the code',
    factors: 'Second factor over RADIUS',
    factorsHint:
      'A device can ask only for an authenticator app’s code: passkeys and keys cannot be given through it. Where the MFA policy allows only passkeys or keys, people who bound an authenticator app before are still asked for its code; the others are refused, and the device shows them why.',
  },
  list: {
    title: 'RADIUS clients',
    hint: 'A client is a device that sends requests from one address or range, with its own shared secret.',
    add: 'Add client',
    columns: {
      name: 'Name',
      access: 'Who may use it',
      otpMode: 'Second factor',
      status: 'Status',
      requests: 'Requests',
      actions: 'Actions',
    },
    enabled: 'Enabled',
    disabled: 'Disabled',
    counts: 'Accepted {{accepts}} · rejected {{rejects}}',
    dropped: 'Dropped {{count}} (Message-Authenticator)',
    lastRequest: 'Last request {{time}}',
    edit: 'Edit',
    resetSecret: 'New secret',
    delete: 'Delete',
    deleteTitle: 'Delete the RADIUS client “{{name}}”?',
    deleteContent: 'Its requests are dropped from now on: people can no longer sign in through this device.',
    deleted: 'The RADIUS client was deleted',
    resetTitle: 'Make a new shared secret for “{{name}}”?',
    resetContent:
      'The new secret is shown once. The old one stops working at once: the device is refused until it uses the new one.',
  },
  access: {
    all: 'All users of the company',
    restricted: 'People of chosen departments',
  },
  otpMode: {
    challenge: 'Access-Challenge asks for the code',
    appended: 'Code typed after the password',
  },
  otpModeHint: {
    challenge: 'The device shows a second prompt for the code (it must support Access-Challenge).',
    appended:
      'For devices without challenge support: people type their password followed by the 6-digit code.',
  },
  form: {
    smsCodes: 'Codes by SMS',
    smsCodesHint:
      'People without an authenticator app get the code by SMS on their phone (the platform’s SMS provider must be set up).',
    createTitle: 'Add a RADIUS client',
    editTitle: 'Edit {{name}}',
    name: 'Name',
    nameRequired: 'Please enter the name of the RADIUS client',
    tooLong: 'At most {{max}} characters',
    source: 'Source IP or CIDR',
    sourceHint: 'The address requests come from, e.g. 10.0.0.5 or 10.0.0.0/24',
    sourceRequired: 'Please enter the IP address or CIDR range the client sends from',
    enabled: 'Enabled',
    access: 'Who may use it',
    departments: 'Departments',
    departmentsHint: 'Their sub departments are included.',
    departmentsRequired: 'Choose at least one department, or let all users use this client',
    otpMode: 'Second factor',
    create: 'Add',
    save: 'Save',
    created: 'The RADIUS client was added',
    saved: 'The RADIUS client was saved',
  },
  secret: {
    title: 'Shared secret of {{name}}',
    label: 'Shared secret',
  },
};
