/**
 * Where bench/soak.bench.ts forwards the company's syslog: Debian's rsyslog over TCP when
 * scripts/with-rsyslog.sh provides it (counted in the file it writes), else a TCP sink in the
 * benchmark's own process counting octet-counted frames (RFC 6587).
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';

/** A syslog receiver: Debian's rsyslog (scripts/with-rsyslog.sh) or a TCP sink counting frames. */
export async function syslogReceiver() {
  const rsyslog = process.env.TESSERA_TEST_RSYSLOG_TCP;
  const file = process.env.TESSERA_TEST_RSYSLOG_FILE;
  if (rsyslog && file) {
    const [host, port] = rsyslog.split(':');
    return {
      name: `rsyslog (TCP ${rsyslog})`,
      host: host as string,
      port: Number(port),
      received: () => readFileSync(file, 'utf8').split('\n').length - 1,
      bytes: () => statSync(file).size,
      close: async () => {},
    };
  }
  let frames = 0;
  let bytes = 0;
  const sink = createTcpServer((socket) => {
    // Octet counting (RFC 6587): "LEN SP MSG", counted as they come.
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const space = pending.indexOf(0x20);
        if (space < 0) break;
        const length = Number(pending.subarray(0, space).toString());
        if (!Number.isInteger(length) || pending.length < space + 1 + length) break;
        pending = pending.subarray(space + 1 + length);
        frames++;
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((done) => sink.listen(0, '127.0.0.1', done));
  const address = sink.address();
  if (!address || typeof address !== 'object') throw new Error('no syslog sink port');
  return {
    name: `a TCP sink in the benchmark (127.0.0.1:${address.port})`,
    host: '127.0.0.1',
    port: address.port,
    received: () => frames,
    bytes: () => bytes,
    close: () => new Promise<void>((done) => sink.close(() => done())),
  };
}
