import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';
import { translateError } from '../lib/i18n.ts';

export const ok = <T>(data: T) => ({ code: 200, msg: 'success', data });

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  const msg = error.localisedMessage ?? translateError(request.lang, error.reason, error.params);
  return reply.status(error.status).send({
    code: error.status,
    msg,
    data: { reason: error.reason, ...(error.fields ? { fields: error.fields } : {}) },
  });
}

/** Turns every failure into the envelope; 5xx details stay in the log and never reach a client. */
function toAppError(error: FastifyError): AppError | undefined {
  if (error instanceof AppError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('request.unsupported_content_type');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_FILES_LIMIT':
      return new AppError('upload.too_large', { limit: '1 MiB' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('request.malformed_json');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError('request.unsupported_content_type');
  }
  if (error instanceof SyntaxError && error.statusCode === 400) return new AppError('request.malformed_json');
  return undefined;
}

export function installErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = toAppError(error);
    if (known) return sendError(request, reply, known);
    // The static file server's refusal of a path (http-errors it throws, exposed as 4xx): a
    // probe, not a failure of ours. Not found, with nothing written to the log.
    const refused = error as FastifyError & { status?: number; expose?: boolean };
    if (refused.expose && (refused.status === 403 || refused.status === 404)) return reply.callNotFound();
    request.log.error({ err: error }, 'unhandled error');
    return sendError(request, reply, new AppError('internal.error'));
  });
}
