import { Spin } from 'antd';

/** Shown while the session is being established; no layout yet, just the reason for waiting. */
export function FullPageSpinner({ text }: { text?: string }) {
  return (
    <div
      role="status"
      style={{
        minHeight: '100vh',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 16,
      }}
    >
      <Spin size="large" />
      {text ? <span style={{ color: 'rgba(0, 0, 0, 0.45)' }}>{text}</span> : null}
    </div>
  );
}
