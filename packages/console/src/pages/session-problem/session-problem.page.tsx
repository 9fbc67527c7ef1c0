import { Button, Flex, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../../app/console-context.ts';

export interface SessionProblemProps {
  kind: 'sign-in' | 'load';
  message: string;
  onRetry(): void;
}

/** Signing in did not complete, or the company list could not be loaded: say so, offer a way out. */
export function SessionProblemPage({ kind, message, onRetry }: SessionProblemProps) {
  const { t } = useTranslation();
  const { sso, session } = useConsole();
  return (
    <Flex align="center" justify="center" style={{ minHeight: '100vh', padding: 24 }}>
      <Result
        status="warning"
        title={kind === 'sign-in' ? t('session.signInFailedTitle') : t('session.loadFailedTitle')}
        subTitle={
          <>
            <div>{message}</div>
            <div>{kind === 'sign-in' ? t('session.signInFailedHint') : t('session.loadFailedHint')}</div>
          </>
        }
        extra={[
          <Button key="retry" type="primary" onClick={onRetry}>
            {t('session.tryAgain')}
          </Button>,
          kind === 'sign-in' ? (
            <Button key="switch" onClick={() => void sso.switchAccount()}>
              {t('session.switchAccount')}
            </Button>
          ) : (
            <Button key="logout" onClick={() => void session.logout()}>
              {t('common.logOut')}
            </Button>
          ),
        ]}
      />
    </Flex>
  );
}
