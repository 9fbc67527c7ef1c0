import gitlab from './gitlab.svg';
import grafana from './grafana.svg';
import harbor from './harbor.svg';
import jenkins from './jenkins.svg';
import legacyForm from './legacy-form.svg';
import nextcloud from './nextcloud.svg';

/** The icon of each catalogue application (`appTemplates` keys), as an image address. */
export const templateIcons: Readonly<Record<string, string>> = {
  gitlab,
  grafana,
  jenkins,
  nextcloud,
  harbor,
  legacy_form: legacyForm,
};
