/** Applications: the CAS tab of a CAS application (service URL patterns, attributes, tickets, logout). */
export const appsCas = {
  title: 'CAS service',
  intro:
    'The application signs its users in at the CAS server below (Apereo CAS Protocol 3.0). Tickets are issued only for the service URLs the patterns allow.',
  serverUrl: 'CAS server URL',
  serverUrlHint:
    'Give this address to the application; it adds /login, /p3/serviceValidate and the rest itself.',
  copy: 'Copy',
  copied: 'Copied',
  patterns: 'Service URL patterns',
  patternsHint:
    'Exact: the whole address. Prefix: the address and anything under it (…/app allows …/app/home and …/app?x, never …/application). A regular expression must start with ^ and end with $.',
  kind: {
    exact: 'Exact',
    prefix: 'Prefix',
    regex: 'Regular expression',
  },
  kindLabel: 'Match',
  patternLabel: 'Service URL pattern',
  addPattern: 'Add a pattern',
  removePattern: 'Remove the pattern',
  patternRequired: 'Add at least one service URL pattern',
  problem: {
    url: 'Enter a complete http or https address',
    regex_syntax: 'This is not a valid regular expression',
    regex_anchors: 'A regular expression must start with ^ and end with $',
    regex_unsafe:
      'This regular expression could take too long to match: no repeated groups with repetitions or alternatives inside, no backreferences or lookarounds, at most two open-ended repetitions',
  },
  attributes: 'Released attributes',
  attributesHint:
    'Sent at /p3/serviceValidate and /p3/proxyValidate (CAS 3.0); the user name is always the CAS user.',
  attribute: {
    username: 'User name',
    name: 'Name',
    email: 'Email',
    phone: 'Phone',
    departments: 'Departments',
    permissions: 'Permissions',
  },
  ticketTtl: 'Ticket lifetime',
  ticketTtlHint: 'Seconds from 1 to 300: the application must validate a service ticket within this time.',
  seconds: 'seconds',
  allowProxy: 'Allow proxying',
  allowProxyHint:
    'The application may get proxy-granting tickets at an https callback its patterns allow, to reach other CAS services for the person.',
  sloEnabled: 'Single logout',
  sloEnabledHint:
    'When a person signs out of Tessera, or an administrator ends their sessions, a logoutRequest is posted to the application.',
  sloUrl: 'Single-logout URL',
  sloUrlHint:
    'Where the logoutRequest goes; empty: to the service URL of each ticket. It must be allowed by a pattern.',
  sloUrlInvalid: 'The single-logout address must be an address the service URL patterns allow',
  save: 'Save',
};
