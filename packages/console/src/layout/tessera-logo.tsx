/** The product mark, drawn exactly as the sign-in pages draw it (packages/portal styles.css). */
export function TesseraLogo({ size = 28 }: { size?: number }) {
  return (
    <span
      aria-hidden="true"
      style={{
        display: 'inline-block',
        flex: 'none',
        width: size,
        height: size,
        borderRadius: Math.round(size / 4.5),
        background: 'conic-gradient(from 45deg, #1677ff 0 25%, #69b1ff 0 50%, #1677ff 0 75%, #bae0ff 0)',
      }}
    />
  );
}
