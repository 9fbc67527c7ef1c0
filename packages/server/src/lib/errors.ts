import type { FieldError } from '@tessera/contract';
import { type ErrorReason, errorReasons } from '@tessera/contract';

export type { FieldError };

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

/**
 * Runs `work`; a unique-index violation (a parallel request won the race) becomes the
 * AppError named for that index instead of a 500.
 */
export async function uniqueViolationAs<T>(
  byIndex: Record<string, ErrorReason>,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    const reason = constraint ? byIndex[constraint] : undefined;
    if (code === '23505' && reason) throw new AppError(reason);
    throw error;
  }
}
