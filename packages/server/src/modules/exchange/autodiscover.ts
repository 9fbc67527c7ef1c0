/**
 * Autodiscover for phones (MS-ASCMD 2.2.1.1, the MobileSync schemas): a phone set up with an
 * email address asks where its ActiveSync server is, and is told the agent's address. Only the
 * EMailAddress element is read from the request, by a bounded pattern (no XML parser runs on
 * what anyone may post here).
 */

const RESPONSE_SCHEMA = 'http://schemas.microsoft.com/exchange/autodiscover/responseschema/2006';
const MOBILESYNC_SCHEMA = 'http://schemas.microsoft.com/exchange/autodiscover/mobilesync/responseschema/2006';

const escapeXml = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );

/** The address in the request's EMailAddress element, when it looks like one. */
export function emailOfAutodiscoverRequest(body: string): string | null {
  const match = /<(?:\w+:)?EMailAddress>\s*([^<\s]{3,254})\s*<\/(?:\w+:)?EMailAddress>/.exec(
    body.slice(0, 16 * 1024),
  );
  const email = match?.[1];
  return email && /^[^@\s]+@[^@\s]+$/.test(email) ? email : null;
}

export function autodiscoverResponse(email: string | null, agentUrl: string): string {
  const url = escapeXml(agentUrl);
  return `<?xml version="1.0" encoding="utf-8"?>
<Autodiscover xmlns="${RESPONSE_SCHEMA}">
  <Response xmlns="${MOBILESYNC_SCHEMA}">
    <Culture>en:us</Culture>
    <User>${email ? `<EMailAddress>${escapeXml(email)}</EMailAddress>` : ''}</User>
    <Action>
      <Settings>
        <Server>
          <Type>MobileSync</Type>
          <Url>${url}</Url>
          <Name>${url}</Name>
        </Server>
      </Settings>
    </Action>
  </Response>
</Autodiscover>
`;
}
