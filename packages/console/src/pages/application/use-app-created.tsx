import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useFeedback } from '../../app/feedback.ts';
import { appDetailPath, type CreatedApp } from './app-view.ts';
import { SecretOnceModal } from './secret-once.modal.tsx';

/**
 * After an application is added: an OIDC app's client secret is shown once, then its detail
 * opens; a form-fill app (which signs in with no secret) goes to its detail at once.
 */
export function useAppCreated() {
  const { t } = useTranslation();
  const { message } = useFeedback();
  const navigate = useNavigate();
  const [created, setCreated] = useState<CreatedApp>();

  const onCreated = (result: CreatedApp) => {
    void message.success(t('apps.create.created', { name: result.app.name }));
    if (result.app.protocol === 'oidc') setCreated(result);
    else navigate(appDetailPath(result.app.appId));
  };

  const secretModal = created ? (
    <SecretOnceModal
      title={t('apps.secret.title')}
      clientId={created.app.clientId}
      secret={created.clientSecret}
      onClose={() => navigate(appDetailPath(created.app.appId))}
    />
  ) : null;

  return { onCreated, secretModal, creating: created !== undefined };
}
