import { type ErrorReason, errorReasons } from '@tessera/contract';

export interface FieldError {
  field: string;
  message: string;
}

/** A failure the client should see: its reason is a phrase key, its status mirrors the envelope code. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly reason: ErrorReason,
    readonly params: Record<string, string | number> = {},
    readonly fields?: FieldError[],
    /** Already localised message that replaces the phrase (validation messages). */
    readonly localisedMessage?: string,
  ) {
    super(reason);
    this.status = errorReasons[reason];
  }
}
