/**
 * Request bodies of upload routes (POST /documents): multipart/form-data, streamed through busboy so
 * a file over the limit is refused while it arrives, or JSON with a limit sized for base64 files.
 * These paths skip the JSON body middleware (its limit is for messages, not files).
 */
import busboy from 'busboy';
import type { Context } from 'koa';
import type { UploadedFile } from '../actors/runtime/contract.js';
import { ApiError } from './error-response.js';

export interface UploadLimits {
  maxFileBytes: number;
  maxFiles: number;
}

export interface UploadBody {
  body: Record<string, unknown>;
  files: UploadedFile[];
}

const MB = 1024 * 1024;
const megabytes = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

export async function readUploadBody(ctx: Context, limits: UploadLimits): Promise<UploadBody> {
  if (ctx.request.is('multipart/form-data')) return readMultipart(ctx, limits);
  if (ctx.request.is('json', '+json')) return { body: await readJson(ctx, limits), files: [] };
  throw new ApiError(415, 'unsupported_media_type', 'send files as multipart/form-data, or JSON with the text', { contentType: ctx.get('content-type') || null });
}

/** base64 is 4/3 of the bytes; the rest of the JSON is small. */
async function readJson(ctx: Context, limits: UploadLimits): Promise<Record<string, unknown>> {
  const limit = Math.ceil(limits.maxFileBytes * limits.maxFiles * 1.34) + 64 * 1024;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError(413, 'payload_too_large', `the request body is larger than the limit of ${megabytes(limit)}`, { limitBytes: limit });
    chunks.push(chunk);
  }
  if (size === 0) return {};
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch (error) {
    throw new ApiError(400, 'bad_request', 'the request body is not valid JSON (an object)', { reason: (error as Error).message.slice(0, 200) });
  }
  throw new ApiError(400, 'bad_request', 'the request body must be a JSON object');
}

function readMultipart(ctx: Context, limits: UploadLimits): Promise<UploadBody> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles, fields: 50, fieldSize: 64 * 1024 } });
    } catch (error) {
      reject(new ApiError(400, 'bad_request', `unreadable multipart body: ${(error as Error).message}`));
      return;
    }
    const body: Record<string, unknown> = {};
    const files: UploadedFile[] = [];
    let failure: ApiError | undefined;
    const fail = (error: ApiError) => {
      failure ??= error;
    };
    parser.on('field', (name, value) => {
      body[name] = value;
    });
    parser.on('file', (_field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        fail(new ApiError(413, 'payload_too_large', `${info.filename || 'a file'} is larger than the limit of ${megabytes(limits.maxFileBytes)} a file`, { file: info.filename, limitBytes: limits.maxFileBytes })),
      );
      stream.on('close', () => {
        const name = (info.filename || 'upload').split(/[\\/]/).pop()!.slice(0, 200);
        files.push({ name, contentType: info.mimeType || 'application/octet-stream', bytes: Buffer.concat(chunks) });
      });
    });
    parser.on('filesLimit', () => fail(new ApiError(413, 'payload_too_large', `at most ${limits.maxFiles} files per upload`, { maxFiles: limits.maxFiles })));
    parser.on('error', (error: Error) => reject(new ApiError(400, 'bad_request', `unreadable multipart body: ${error.message}`)));
    parser.on('close', () => (failure ? reject(failure) : resolve({ body, files })));
    ctx.req.pipe(parser);
  });
}
