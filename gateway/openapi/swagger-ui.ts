/**
 * The API reference page: Swagger UI from the swagger-ui-dist package, served from node_modules (never
 * a CDN), started by a script of our own so the page needs no inline script.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { DOCS_PATH, OPENAPI_PATH } from './docs-paths.js';

export const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The dist files the page loads: nothing else of the package is served. */
export const SWAGGER_UI_FILES = new Set(['swagger-ui.css', 'index.css', 'swagger-ui-bundle.js', 'favicon-16x16.png', 'favicon-32x32.png']);

export const INIT_SCRIPT_FILE = 'init.js';

/** No validator badge (it would call validator.swagger.io); nothing remembered between visits. */
export const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: false,
    displayRequestDuration: true,
  });
});
`;

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>troupe API reference</title>
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-16x16.png" sizes="16x16">
<link rel="stylesheet" href="${DOCS_PATH}/index.css">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/${INIT_SCRIPT_FILE}"></script>
</body>
</html>
`;

/**
 * As strict as Swagger UI allows: scripts and styles only from this origin (no inline script or
 * `style` attribute, no eval), requests ("Try it out" and the document) only to this origin. One
 * relaxation: img-src data:, because swagger-ui.css draws its icons as SVG data URIs. (Swagger UI 5
 * sets styles through the DOM, which style-src does not govern, so 'unsafe-inline' is not needed.)
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
