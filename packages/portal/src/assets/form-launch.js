// Submits the sign-in form of a form-fill application as soon as its page loads (see
// app-pages.ts). Without script, the page's Continue button submits the same form.
(() => {
  const form = document.querySelector('form[data-auto-submit]');
  // The prototype's submit: a field of the app's form named "submit" would hide form.submit.
  if (form) HTMLFormElement.prototype.submit.call(form);
})();
