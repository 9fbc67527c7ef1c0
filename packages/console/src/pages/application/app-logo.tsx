import { Avatar } from 'antd';
import { templateIcons } from './icons/template-icons.ts';

/** Distinct placeholder colours, picked by the name so an app keeps its colour. */
const placeholderColours = ['#1677ff', '#13a8a8', '#722ed1', '#eb2f96', '#fa8c16', '#52c41a', '#2f54eb'];

const colourOf = (name: string) => {
  let sum = 0;
  for (const char of name) sum = (sum * 31 + (char.codePointAt(0) ?? 0)) % 9973;
  return placeholderColours[sum % placeholderColours.length];
};

/**
 * An application's logo: the uploaded one, otherwise its catalogue icon, otherwise its first
 * letter on a colour of its own.
 */
export function AppLogo({
  app,
  size = 36,
}: {
  app: { name: string; logo: string | null; template?: string | null };
  size?: number;
}) {
  const src = app.logo ?? (app.template ? templateIcons[app.template] : undefined);
  return (
    <Avatar
      shape="square"
      size={size}
      src={src}
      alt={app.name}
      style={{
        flex: 'none',
        background: src ? 'transparent' : colourOf(app.name),
        fontSize: Math.round(size * 0.45),
        borderRadius: Math.round(size / 5),
      }}
    >
      {Array.from(app.name.trim())[0]?.toUpperCase() ?? '?'}
    </Avatar>
  );
}
