/** Types for @koa/cors 5 (CommonJS, ships none), limited to the options gateway/cors.ts uses. */
declare module '@koa/cors' {
  import type { Context, Middleware } from 'koa';

  export interface CorsOptions {
    /** An origin, `*`, or a function returning the origin to allow ('' = send no CORS headers). */
    origin?: string | ((ctx: Context) => string | Promise<string>);
    allowMethods?: string | string[];
    allowHeaders?: string | string[];
    exposeHeaders?: string | string[];
    maxAge?: number | string;
    credentials?: boolean | ((ctx: Context) => boolean | Promise<boolean>);
    keepHeadersOnError?: boolean;
  }

  export default function cors(options?: CorsOptions): Middleware;
}
