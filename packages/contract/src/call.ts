import { z } from 'zod';

/**
 * One API call, declared once: the server binds it, the console calls it through a typed
 * function, and the OpenAPI document is generated from the same table.
 */
export interface CallDef<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  path: string;
  summary: string;
  tag: string;
  /** `public`: no console token; `session`: a valid console token is required. */
  auth: 'public' | 'session';
  /** When true, the `company_id` header is required and checked against the caller's memberships. */
  tenant: boolean;
  request: Req;
  response: Res;
  /** multipart/form-data upload instead of JSON (the request schema then describes the text fields). */
  upload?: { field: string; maxBytes: number; types: readonly string[] };
}

export const defineCall = <Req extends z.ZodType, Res extends z.ZodType>(
  def: CallDef<Req, Res>,
): CallDef<Req, Res> => def;

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

export const paging = {
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(100).default(20),
};
