import swaggerUi from '@fastify/swagger-ui';
import type { FastifyRequest } from 'fastify';
import type { App } from '../app.js';
import { openApiTitle, type OpenApiDocument } from './openapi.js';

export interface OpenApiPageOptions {
  /** Where the page is served; its files and its copy of the document (`<prefix>/json`) are under it. */
  prefix: string;
  /** The document the page shows: the one the JSON route answers. */
  load(): Promise<OpenApiDocument>;
}

/**
 * The browsable page of the document (swagger-ui). Its copy of the document is `load`'s, not the
 * app's own collection: distributed, the gateway's own routes are only its proxies.
 */
export async function registerOpenApiPage(app: App, options: OpenApiPageOptions): Promise<void> {
  const documentRoute = `${options.prefix}/json`;
  const yamlRoute = `${options.prefix}/yaml`;
  const loaded = new WeakMap<FastifyRequest, OpenApiDocument>();
  await app.register(swaggerUi, {
    routePrefix: options.prefix,
    theme: { title: openApiTitle },
    uiConfig: { docExpansion: 'none', deepLinking: true },
    uiHooks: {
      preHandler: (request, reply, done) => {
        // Its YAML copy would be rendered anew on every request (a quarter of a second of the
        // event loop each): not served, the JSON document is the one.
        if (request.routeOptions.url === yamlRoute) return void reply.callNotFound();
        if (request.routeOptions.url !== documentRoute) return done();
        // swagger-ui's document route answers synchronously: the document is loaded before.
        options.load().then((document) => {
          loaded.set(request, document);
          done();
        }, done);
      },
    },
    transformSpecificationClone: false,
    transformSpecification: (_collected, request) => loaded.get(request) ?? {},
  });
}
