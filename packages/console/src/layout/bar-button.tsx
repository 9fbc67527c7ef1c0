import type { ButtonHTMLAttributes, ReactNode, Ref } from 'react';

/**
 * The top bar's text buttons: antd's `type="text"` look without antd's Button (its wave effect
 * and compact-space machinery), which the first screen would otherwise load. Popups wrap it, so
 * it passes their props and ref through.
 */
export function BarButton({
  icon,
  children,
  className,
  ref,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { icon?: ReactNode; ref?: Ref<HTMLButtonElement> }) {
  const iconOnly = children === null || children === undefined || children === false;
  return (
    <button
      type="button"
      ref={ref}
      className={['tl-button', iconOnly ? 'tl-button-icon' : '', className ?? ''].join(' ').trim()}
      {...rest}
    >
      {icon}
      {children}
    </button>
  );
}
