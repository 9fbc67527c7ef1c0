import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ConsoleApp } from './app/app.tsx';
import { createConsoleRouter } from './app/routes.tsx';
import { basenameOf, isUnderBasename, variantOf } from './app/variant.ts';
import { detectedLanguage, initI18n, loadLanguage } from './i18n/i18n.ts';

/**
 * The entry: language, router and theme. Everything else (session, HTTP client, screens) is
 * in chunks the router loads; see app/console-root.tsx.
 */
async function start(root: HTMLElement) {
  const basename = basenameOf(variantOf(window.location.pathname));
  if (!isUnderBasename(window.location.pathname, basename)) {
    window.location.replace(`${basename}/`);
    return;
  }
  const lang = detectedLanguage();
  // Without its chunk the console shows English rather than nothing.
  await loadLanguage(lang).catch(() => undefined);
  initI18n(lang);
  createRoot(root).render(
    <StrictMode>
      <ConsoleApp router={createConsoleRouter(basename)} />
    </StrictMode>,
  );
}

const root = document.getElementById('root');
if (root) void start(root);
