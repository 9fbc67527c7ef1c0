// Home-realm discovery on the sign-in form: an address of a domain listed in the form's
// data-upstream-domains signs in at the company's identity provider, so the password field is
// hidden (and not required) for it. The server decides on submission either way.
(() => {
  const form = document.querySelector('form[data-upstream-domains]');
  if (!form) return;
  const domains = (form.getAttribute('data-upstream-domains') || '').split(' ').filter(Boolean);
  const identifier = form.querySelector('#identifier');
  const password = form.querySelector('#password');
  const label = form.querySelector('label[for="password"]');
  if (!identifier || !password) return;
  const update = () => {
    const value = identifier.value.trim().toLowerCase();
    const at = value.lastIndexOf('@');
    const upstream = at > 0 && domains.includes(value.slice(at + 1));
    password.hidden = upstream;
    password.required = !upstream;
    if (label) label.hidden = upstream;
  };
  identifier.addEventListener('input', update);
  update();
})();
