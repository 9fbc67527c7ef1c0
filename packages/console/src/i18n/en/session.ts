export const session = {
  redirecting: 'Taking you to the sign-in page…',
  signingIn: 'Signing you in…',
  loginAgainTitle: 'Login Again',
  loginAgainContent: 'Identity information invalid, please login again!',
  loginAgainOk: 'Sign in',
  signInFailedTitle: 'Sign-in did not complete',
  signInFailedHint: 'You can try again, or sign in with another account.',
  loadFailedTitle: 'Your companies could not be loaded',
  loadFailedHint: 'You can try again, or log out.',
  tryAgain: 'Try again',
  switchAccount: 'Sign in with another account',
};
