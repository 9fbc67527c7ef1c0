import { z } from 'zod';
import type { ConsoleAccess, ConsoleVariant } from './constants.ts';
import type { ErrorReason } from './errors.ts';

/** A multipart upload: the form field of the file, its size limit and the accepted types. */
export interface CallUpload {
  field: string;
  maxBytes: number;
  types: readonly string[];
  /** The reason answered when no file comes (default `upload.missing_file`). */
  missingReason?: ErrorReason;
}

/**
 * A second path of a call. Spec §7 lists a few calls twice, under two paths (for example
 * `company/license` beside `license/detail`): the second path is the same call, not a copy.
 */
export interface CallAlias<Path extends string = string> {
  path: Path;
  /** What the path answers and why it is this call (the spec shows no payload for these): its OpenAPI summary. */
  summary: string;
}

/**
 * One API call, declared once: the server binds it, the console calls it through a typed
 * function, and the OpenAPI document is generated from the same table. `Path` is the literal
 * path and `Upload` says whether the call is an upload, so that clients can look a call's types
 * up by its path (see `CallMap`) without loading its schemas; `AliasPath` are its other paths.
 */
export interface CallDef<
  Req extends z.ZodType = z.ZodType,
  Res extends z.ZodType = z.ZodType,
  Path extends string = string,
  Upload extends CallUpload | undefined = CallUpload | undefined,
  AliasPath extends string = string,
> {
  path: Path;
  /**
   * Other paths of this very call. `bind()` serves each with the call's own handler, under the
   * same session, tenant and role rules, so an alias answers exactly what the call answers; the
   * OpenAPI document lists each, marked `x-alias-of`.
   */
  aliases?: readonly CallAlias<AliasPath>[];
  summary: string;
  tag: string;
  /**
   * `public`: no console token; `session`: a valid console token is required; `app`: an
   * application calls with its own OIDC client id and secret (HTTP Basic, as at the token
   * endpoint), and the company is the application's.
   */
  auth: 'public' | 'session' | 'app';
  /**
   * A call of one console (a session call under `/api/v1/admin/` or `/api/v1/dev/`): it takes
   * only the tokens that console's client was issued; another console's token is answered like
   * any invalid token (401), and its session is left as it was.
   */
  console?: ConsoleVariant;
  /** When true, the `company_id` header is required and checked against the caller's memberships. */
  tenant: boolean;
  /**
   * What a person with a custom console role needs for this call (spec §6 permission groups):
   * one of the groups, to read or to manage, or a finer ability of one; `console`: anyone who
   * reaches the console in the company. Owners and administrators may make every call. A
   * tenant call without it is refused to custom roles.
   */
  access?: ConsoleAccess;
  /**
   * When true, a programmatic access account may also make this call, with a bearer token from
   * the client credentials grant, in its own company (the documented API subset).
   */
  apiAccess?: boolean;
  request: Req;
  response: Res;
  /** multipart/form-data upload instead of JSON (the request schema then describes the text fields). */
  upload?: Upload;
  /** The answer is a file with this Content-Type instead of the JSON envelope (the handler returns `downloadFile`). */
  download?: { contentType: string };
}

export const defineCall = <
  Req extends z.ZodType,
  Res extends z.ZodType,
  const Path extends string,
  Upload extends CallUpload | undefined = undefined,
  const AliasPath extends string = never,
>(
  def: CallDef<Req, Res, Path, Upload, AliasPath>,
): CallDef<Req, Res, Path, Upload, AliasPath> => def;

/** A call as served at one path: its own (no `aliasOf`) or an alias (`aliasOf` is the call's own path). */
export type CallAtPath = CallDef & { aliasOf?: string };

/** Every path a call is served at: its own first, then its aliases, each with the alias's summary. */
export function pathsOfCall(call: CallDef): CallAtPath[] {
  const { aliases = [], ...own } = call;
  return [
    call,
    ...aliases.map((alias) => ({ ...own, path: alias.path, summary: alias.summary, aliasOf: call.path })),
  ];
}

export type CallRequest<C> = C extends CallDef<infer Req, z.ZodType> ? z.input<Req> : never;
export type CallResponse<C> = C extends CallDef<z.ZodType, infer Res> ? z.output<Res> : never;

export const emptyRequest = z.object({}).default({});

/** The `{ code, msg, data }` envelope that wraps every response. */
export const envelope = <T extends z.ZodType>(data: T) =>
  z.object({ code: z.number().int(), msg: z.string(), data });

export const errorData = z
  .object({
    reason: z.string(),
    fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .nullable();

/** What the handler of a `download` call returns. */
export const downloadFile = z.object({
  filename: z.string(),
  contentType: z.string(),
  bytes: z.instanceof(Uint8Array),
});

/**
 * What the handler of a `download` call returns when the file is written as it is read (an
 * export of many rows): the bytes come from `chunks` and are sent as they come.
 */
export const downloadStream = z.object({
  filename: z.string(),
  contentType: z.string(),
  chunks: z.custom<AsyncIterable<Uint8Array>>(
    (value) => typeof value === 'object' && value !== null && Symbol.asyncIterator in value,
  ),
});

/** An id named in a request (a user, a department, an application...). */
export const entityId = z.string().trim().min(1).max(64);

/** Optional text: trimmed, and an empty string means "not set". */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((value) => (value === '' ? null : value))
    .nullable()
    .optional();

export const paging = {
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(100).default(20),
};
