import type { FastifyPluginAsync } from 'fastify';
import { createOptionsMirror, registerDiagnostics, useAccessControl, type Infrastructure } from '@aigw/platform';

export interface ChannelsPluginOptions {
  infra: Infrastructure;
}

/** Channels: upstream channels, abilities, tags, tests, balances and model lists. Built in its own issue; for now it mirrors the options and answers its health route. */
const channelsPlugin: FastifyPluginAsync<ChannelsPluginOptions> = async (app, { infra }) => {
  useAccessControl(app, 'channels');
  const options = await createOptionsMirror({ bus: infra.bus, logger: infra.logger });
  app.addHook('onClose', () => options.close());
  registerDiagnostics(app, 'channels', options);
};

export default channelsPlugin;
