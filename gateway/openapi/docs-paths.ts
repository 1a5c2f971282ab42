/** Where the API description and its reader are served (public: they hold nothing secret). */
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';
/** Swagger UI's files and the page's own script, under /docs/. */
export const DOCS_FILE_ROUTE = `${DOCS_PATH}/:file`;
