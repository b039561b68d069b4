import type { FastifyPluginAsync } from 'fastify';
import { createOptionsMirror, registerDiagnostics, useAccessControl, type Infrastructure } from '@aigw/platform';

export interface NotifierPluginOptions {
  infra: Infrastructure;
}

/** Notifier: email, low-balance warnings, channel alerts and webhooks. Built in its own issue; for now it mirrors the options and answers its health route. */
const notifierPlugin: FastifyPluginAsync<NotifierPluginOptions> = async (app, { infra }) => {
  useAccessControl(app, 'notifier');
  const options = await createOptionsMirror({ bus: infra.bus, logger: infra.logger });
  app.addHook('onClose', () => options.close());
  registerDiagnostics(app, 'notifier', options);
};

export default notifierPlugin;
