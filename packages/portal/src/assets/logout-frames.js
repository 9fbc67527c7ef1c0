// Front-channel logout (frontchannel-logout page in oidc-pages.ts): loads each application's
// logout URI in a hidden frame and goes on once all have loaded, or after 5 seconds at most.
(() => {
  const holder = document.getElementById('logout-frames');
  if (!holder) return;
  const next = holder.getAttribute('data-continue');
  const sources = [...holder.querySelectorAll('[data-frame]')].map((el) => el.getAttribute('data-frame'));
  let left = sources.length;
  let done = false;
  const go = () => {
    if (done || !next) return;
    done = true;
    window.location.replace(next);
  };
  for (const src of sources) {
    const frame = document.createElement('iframe');
    frame.hidden = true;
    frame.title = 'logout';
    frame.setAttribute('sandbox', 'allow-same-origin allow-scripts');
    // The listener is there before the frame starts loading.
    frame.addEventListener('load', () => {
      left -= 1;
      if (left <= 0) go();
    });
    frame.src = src;
    holder.appendChild(frame);
  }
  if (!left) go();
  setTimeout(go, 5000);
})();
