import type { ErrorReason } from '@tessera/contract';

/**
 * A failure of a directory or a provider (unreachable, time-out, TLS, refused credentials...)
 * with the reason key of its message and the message's parameters: what "Test connection", a
 * sync run and the sign-in page show, each in the reader's language.
 */
export class SourceFailure extends Error {
  constructor(
    readonly reason: ErrorReason,
    readonly params: Record<string, string> = {},
  ) {
    super(`${reason} ${JSON.stringify(params)}`);
  }
}
