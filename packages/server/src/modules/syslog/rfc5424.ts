/**
 * Syslog messages per RFC 5424, framed for TCP and TLS by octet counting (RFC 6587 §3.4.1,
 * also RFC 5425): `MSG-LEN SP SYSLOG-MSG`. Structured data carries the event's fields under the
 * SD-ID `tessera@32473` (32473 is the enterprise number RFC 5612 reserves for documentation and
 * examples; receivers match on the name).
 */
export const SD_ID = 'tessera@32473';

export const facilities = { authpriv: 10, logAudit: 13 } as const;
export const severities = { alert: 1, warning: 4, notice: 5, info: 6 } as const;

export interface SyslogMessage {
  facility: number;
  severity: number;
  time: Date;
  hostname: string;
  appName: string;
  msgId: string;
  params: Record<string, string | number | null | undefined>;
  text: string;
}

/** PRINTUSASCII without the characters SD-NAME excludes ('=', SP, ']', '"'), 1 to 32 long. */
const sdName = (name: string) => name.replace(/[^!-~]|[= \]"]/g, '_').slice(0, 32) || '_';

/** PARAM-VALUE: '"', '\' and ']' are escaped with a backslash (RFC 5424 §6.3.3). */
export const escapeParamValue = (value: string) => value.replace(/["\\\]]/g, (c) => `\\${c}`);

/** A header field: printable US-ASCII without spaces, or NILVALUE when empty. */
const headerField = (value: string, max: number) => value.replace(/[^!-~]/g, '_').slice(0, max) || '-';

export function formatRfc5424(message: SyslogMessage): string {
  const pri = message.facility * 8 + message.severity;
  const params = Object.entries(message.params)
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([name, value]) => `${sdName(name)}="${escapeParamValue(String(value))}"`)
    .join(' ');
  const sd = params ? `[${SD_ID} ${params}]` : '-';
  // The MSG is UTF-8 text introduced by a byte order mark (RFC 5424 §6.4).
  const text = message.text.replace(/[\r\n]+/g, ' ');
  return `<${pri}>1 ${message.time.toISOString()} ${headerField(message.hostname, 255)} ${headerField(message.appName, 48)} - ${headerField(message.msgId, 32)} ${sd} \uFEFF${text}`;
}

/** Octet counting: the length in bytes of the UTF-8 message, a space, the message. */
export function frameOctetCounted(message: string): Buffer {
  const body = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length} `, 'ascii'), body]);
}
