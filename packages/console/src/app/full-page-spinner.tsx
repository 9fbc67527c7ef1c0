/**
 * antd's large Spin (four dots turning, in the primary colour), drawn as an animated SVG: this
 * shows before anything else, so it does not wait for antd's Spin and its styles.
 */
function Dots() {
  const dot = (cx: number, cy: number, opacity: number) => (
    <circle cx={cx} cy={cy} r={5} fill="#1677ff" opacity={opacity}>
      <animate attributeName="opacity" values={`${opacity};1;${opacity}`} dur="1s" repeatCount="indefinite" />
    </circle>
  );
  return (
    <svg width={32} height={32} viewBox="0 0 32 32" aria-hidden="true">
      <g>
        {dot(6, 6, 0.3)}
        {dot(26, 6, 0.5)}
        {dot(26, 26, 0.7)}
        {dot(6, 26, 0.9)}
        <animateTransform
          attributeName="transform"
          type="rotate"
          from="0 16 16"
          to="360 16 16"
          dur="1.2s"
          repeatCount="indefinite"
        />
      </g>
    </svg>
  );
}

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
      <Dots />
      {text ? <span style={{ color: 'rgba(0, 0, 0, 0.45)' }}>{text}</span> : null}
    </div>
  );
}
