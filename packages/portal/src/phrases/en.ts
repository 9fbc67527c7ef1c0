export const en = {
  productName: 'Tessera',
  tagline: 'Identity authentication service platform',
  /** Names of Tessera's own clients, as shown on the sign-in page. */
  clients: {
    'tessera-console-dev': 'Tessera console',
    'tessera-console-admin': 'Tessera admin console',
  } as Record<string, string>,
  language: { switchTo: '中文', switchCode: 'zh' },
  signIn: {
    title: 'Sign in',
    subtitle: 'Sign in to continue to {client}',
    identifier: 'Username, email or phone',
    password: 'Password',
    submit: 'Sign in',
    cancel: 'Cancel',
    invalidCredentials: 'The account or password is incorrect',
    missingFields: 'Please enter your account and password',
    accountDisabled: 'This account has been disabled. Please contact your administrator',
    accountLocked: 'This account is locked after too many failed attempts. Try again after {until}',
    throttled: 'Too many sign-in attempts. Please try again later',
    notAllowed: 'This account may not sign in to {client}',
    sessionExpired: 'The sign-in page has expired. Please start again from your application',
  },
  error: {
    title: 'Something went wrong',
    back: 'Please return to your application and try again.',
  },
  logout: {
    title: 'Sign out',
    question: 'Do you want to sign out of Tessera?',
    confirm: 'Yes, sign me out',
    stay: 'No, stay signed in',
    doneTitle: 'Signed out',
    done: 'You have signed out.',
    doneWithClient: 'You have signed out of {client}.',
  },
} as const;

type Widen<T> = { [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };
export type PortalPhrases = Widen<typeof en>;
