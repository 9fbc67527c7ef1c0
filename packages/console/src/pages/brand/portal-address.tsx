import { Typography } from 'antd';

/** The user centre's address of a company (served by the same server as the console). */
export const portalAddressOf = (code: string, origin = window.location.origin) =>
  `${origin}/portal/c/${encodeURIComponent(code)}/`;

/** The company's user centre address, to open or copy: the bookmark that always shows its brand. */
export function PortalAddress({ code }: { code: string }) {
  const address = portalAddressOf(code);
  return (
    <Typography.Text
      copyable={{ text: address }}
      data-testid="portal-address"
      style={{ wordBreak: 'break-all' }}
    >
      <Typography.Link href={address} target="_blank" rel="noopener noreferrer">
        {address}
      </Typography.Link>
    </Typography.Text>
  );
}
