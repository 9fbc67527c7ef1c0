/** Reading what a syslog receiver got: octet-counted frames (RFC 6587) and the RFC 5424 header. */
export function parseOctetCounted(bytes: Buffer): string[] {
  const messages: string[] = [];
  let at = 0;
  while (at < bytes.length) {
    const space = bytes.indexOf(0x20, at);
    if (space < 0) throw new Error(`a frame without a length at byte ${at}`);
    const length = Number(bytes.toString('ascii', at, space));
    if (!Number.isInteger(length) || length <= 0) throw new Error(`a bad frame length at byte ${at}`);
    messages.push(bytes.toString('utf8', space + 1, space + 1 + length));
    at = space + 1 + length;
  }
  return messages;
}

/** RFC 5424 §6: PRI VERSION SP TIMESTAMP SP HOSTNAME SP APP-NAME SP PROCID SP MSGID SP SD [SP MSG]. */
export const RFC5424 =
  /^<(?<pri>\d{1,3})>(?<version>1) (?<time>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)) (?<hostname>[!-~]{1,255}) (?<app>[!-~]{1,48}) (?<procid>[!-~]{1,128}) (?<msgid>[!-~]{1,32}) (?<sd>-|(\[[^ =\]"]+( [^ =\]"]+="([^"\\\]]|\\["\\\]])*")*\])+)( (?<msg>.*))?$/s;
