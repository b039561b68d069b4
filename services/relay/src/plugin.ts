import type { FastifyPluginAsync } from 'fastify';
import { createOptionsMirror, registerDiagnostics, useAccessControl, type Infrastructure } from '@aigw/platform';

export interface RelayPluginOptions {
  infra: Infrastructure;
}

/** Relay: /v1/*, /v1beta/*, /pg/*, /mj/*, /suno/*. Built in its own issue; for now it mirrors the options and answers its health route. */
const relayPlugin: FastifyPluginAsync<RelayPluginOptions> = async (app, { infra }) => {
  useAccessControl(app, 'relay');
  const options = await createOptionsMirror({ bus: infra.bus, logger: infra.logger });
  app.addHook('onClose', () => options.close());
  registerDiagnostics(app, 'relay', options);
};

export default relayPlugin;
