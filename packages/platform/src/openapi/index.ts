export { openApiDocument, openApiTitle, serveServiceOpenApi, serviceOpenApiPath, type OpenApiDocument, type OpenApiInfo, type OpenApiTag } from './openapi.js';
export { mergeOpenApiDocuments, openApiPartSchema, type MergedOpenApi, type OpenApiPart } from './merge.js';
export { registerOpenApiPage, type OpenApiPageOptions } from './page.js';
export type { ExternalDocs } from './compatible-apis.js';
