import { createSocket } from 'node:dgram';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { parseAddress } from '../../lib/outbound-address.ts';
import { frameOctetCounted } from './rfc5424.ts';

export interface SyslogTarget {
  protocol: 'udp' | 'tcp' | 'tls';
  /** The name the administrator set (the TLS server name); `address` is what was checked and is dialled. */
  host: string;
  address: string;
  port: number;
  caPem: string | null;
}

/** A datagram carries at most this much (RFC 5426 receivers take 2 048 and rsyslog 8 192 by default). */
export const UDP_MAX_BYTES = 8_192;
const TIMEOUT_MS = 15_000;

function sendUdp(target: SyslogTarget, messages: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(target.address) === 6 ? 'udp6' : 'udp4');
    const fail = (error: Error) => {
      socket.close();
      reject(error);
    };
    socket.once('error', fail);
    socket.connect(target.port, target.address, async () => {
      try {
        for (const message of messages) {
          const bytes = Buffer.from(message, 'utf8').subarray(0, UDP_MAX_BYTES);
          await new Promise<void>((done, failed) =>
            socket.send(bytes, (error) => (error ? failed(error) : done())),
          );
        }
        socket.close();
        resolve();
      } catch (error) {
        fail(error as Error);
      }
    });
  });
}

/**
 * Writes the framed messages, then closes the sending side and waits for the receiver to close
 * its side: a receiver that closes after reading to the end has read every byte (rsyslog's imtcp
 * does), so only then do the events count as delivered. A receiver that died half-way resets the
 * connection and the batch is sent again (at least once).
 */
function sendStream(target: SyslogTarget, messages: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const socket: Socket =
      target.protocol === 'tls'
        ? tlsConnect({
            host: target.address,
            port: target.port,
            servername: parseAddress(target.host) ? undefined : target.host,
            ca: target.caPem ?? undefined,
            rejectUnauthorized: true,
            minVersion: 'TLSv1.2',
          })
        : netConnect({ host: target.address, port: target.port });
    const timer = setTimeout(() => finish(new Error('the syslog server did not answer in time')), TIMEOUT_MS);
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    socket.once('error', (error) => finish(error));
    socket.on('data', () => {
      // Nothing is expected back; read it so that the connection can close.
    });
    socket.once(target.protocol === 'tls' ? 'secureConnect' : 'connect', () => {
      socket.end(Buffer.concat(messages.map(frameOctetCounted)));
    });
    socket.once('close', (hadError) => {
      finish(hadError ? new Error('the syslog server reset the connection') : undefined);
    });
  });
}

export function sendSyslog(target: SyslogTarget, messages: string[]): Promise<void> {
  if (!messages.length) return Promise.resolve();
  return target.protocol === 'udp' ? sendUdp(target, messages) : sendStream(target, messages);
}
