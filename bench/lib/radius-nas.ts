import { createHash } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import radius from 'radius';
import { sleep } from './server.ts';

/**
 * The network device of bench/radius.bench.ts: PAP Access-Requests with a Message-Authenticator
 * over UDP, and the check of every answer (Response Authenticator, Message-Authenticator, code).
 */

/** How long one request waits for its answer (an Access-Reject comes after the server's 1 s delay). */
const ANSWER_TIMEOUT_MS = 10_000;

const ACCESS_ACCEPT = 2;
const codeNames: Record<number, string> = { 2: 'Access-Accept', 3: 'Access-Reject', 11: 'Access-Challenge' };

export interface Person {
  username: string;
  password: string;
  /** Each person's own calling station, so that the sign-in budgets of one device do not throttle. */
  callingStationId: string;
}

/** A calling station of its own for person i: 02-00-00-00-00-00 up (locally administered MACs). */
export const stationOf = (i: number) =>
  (0x020000000000 + i)
    .toString(16)
    .padStart(12, '0')
    .replace(/(..)(?!$)/g, '$1-');

export type Outcome = { ok: true } | { ok: false; reason: string };

interface Pending {
  request: Buffer;
  done: (outcome: Outcome) => void;
  timer: NodeJS.Timeout;
}

/**
 * A RADIUS client (the network device) on several UDP sockets of 127.0.0.1. Each socket has its
 * own 256 identifiers; an identifier is taken by one request until its answer comes (one that
 * timed out stays taken, so that a late answer cannot be read as another request's).
 */
export class RadiusDevice {
  #sockets: { socket: Socket; pending: (Pending | 'lost' | undefined)[]; next: number }[] = [];
  #turn = 0;
  /** Answers that came for no request waiting (late, duplicated or malformed). */
  strayAnswers = 0;

  constructor(
    private readonly port: number,
    private readonly secret: string,
  ) {}

  async open(count: number) {
    for (let i = 0; i < count; i++) {
      const socket = createSocket('udp4');
      const entry = { socket, pending: new Array<Pending | 'lost' | undefined>(256), next: 0 };
      socket.on('message', (message) => this.#answer(entry.pending, message));
      await new Promise<void>((done) => socket.bind(0, '127.0.0.1', done));
      this.#sockets.push(entry);
    }
  }

  #answer(pending: (Pending | 'lost' | undefined)[], message: Buffer) {
    const identifier = message[1];
    const waiting = identifier === undefined ? undefined : pending[identifier];
    if (!waiting || waiting === 'lost') {
      this.strayAnswers++;
      return;
    }
    pending[identifier as number] = undefined;
    clearTimeout(waiting.timer);
    waiting.done(this.#check(waiting.request, message));
  }

  /** An Access-Accept whose Response Authenticator and Message-Authenticator are right. */
  #check(request: Buffer, answer: Buffer): Outcome {
    if (answer.length < 20 || answer.readUInt16BE(2) > answer.length)
      return { ok: false, reason: 'malformed answer' };
    const answerCode = answer[0] as number;
    // RFC 2865 §3: MD5(Code + Identifier + Length + Request Authenticator + Attributes + Secret).
    const expected = createHash('md5')
      .update(answer.subarray(0, 4))
      .update(request.subarray(4, 20))
      .update(answer.subarray(20, answer.readUInt16BE(2)))
      .update(this.secret)
      .digest();
    if (!expected.equals(answer.subarray(4, 20))) return { ok: false, reason: 'bad Response Authenticator' };
    // The package checks both authenticators again (the Message-Authenticator is required).
    if (!radius.verify_response({ request, response: answer, secret: this.secret }))
      return { ok: false, reason: 'answer does not verify (radius.verify_response)' };
    if (answerCode !== ACCESS_ACCEPT)
      return { ok: false, reason: codeNames[answerCode] ?? `answer code ${answerCode}` };
    return { ok: true };
  }

  /** Sends one request and waits (bounded) for its checked answer. */
  send(code: 'Access-Request' | 'Status-Server', attributes: [string, string][]): Promise<Outcome> {
    const entry = this.#sockets[this.#turn++ % this.#sockets.length];
    if (!entry) throw new Error('the device has no socket open');
    let identifier = -1;
    for (let i = 0; i < 256; i++) {
      const candidate = (entry.next + i) % 256;
      if (entry.pending[candidate] === undefined) {
        identifier = candidate;
        break;
      }
    }
    if (identifier < 0) return Promise.resolve({ ok: false, reason: 'no free identifier on the socket' });
    entry.next = (identifier + 1) % 256;
    const request = radius.encode({
      code,
      secret: this.secret,
      identifier,
      attributes,
      add_message_authenticator: true,
    });
    return new Promise<Outcome>((done) => {
      const timer = setTimeout(() => {
        entry.pending[identifier] = 'lost';
        done({ ok: false, reason: `no answer within ${ANSWER_TIMEOUT_MS / 1000} s` });
      }, ANSWER_TIMEOUT_MS);
      entry.pending[identifier] = { request, done, timer };
      entry.socket.send(request, this.port, '127.0.0.1');
    });
  }

  /**
   * Waits (at most `timeoutMs`) until the server knows this device: it learns of a new client by a
   * notification, so Status-Server every second until one is answered.
   */
  async awaitKnown(nasIdentifier: string, timeoutMs = 70_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await Promise.race([
        this.send('Status-Server', [['NAS-Identifier', nasIdentifier]]),
        sleep(1000).then((): Outcome => ({ ok: false, reason: 'waiting' })),
      ]);
      if (status.ok) return;
      if (Date.now() > deadline) throw new Error('the RADIUS server does not know the new client');
    }
  }

  /** A PAP Access-Request of the person. */
  papRequest(person: Person): Promise<Outcome> {
    return this.send('Access-Request', [
      ['User-Name', person.username],
      ['User-Password', person.password],
      ['NAS-IP-Address', '127.0.0.1'],
      ['NAS-Identifier', 'tessera-bench'],
      ['Calling-Station-Id', person.callingStationId],
    ]);
  }

  async close() {
    for (const { socket, pending } of this.#sockets) {
      for (const waiting of pending) if (waiting && waiting !== 'lost') clearTimeout(waiting.timer);
      await new Promise<void>((done) => socket.close(() => done()));
    }
    this.#sockets = [];
  }
}

/** Failures by reason, for the report. */
export const tally = (outcomes: Outcome[]) => {
  const reasons: Record<string, number> = {};
  for (const outcome of outcomes)
    if (!outcome.ok) reasons[outcome.reason] = (reasons[outcome.reason] ?? 0) + 1;
  return reasons;
};
