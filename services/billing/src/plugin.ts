import type { FastifyPluginAsync } from 'fastify';
import { createOptionsMirror, registerDiagnostics, useAccessControl, type Infrastructure } from '@aigw/platform';

export interface BillingPluginOptions {
  infra: Infrastructure;
}

/** Billing: accounts (balances), API tokens, redemption codes, top-ups, pricing, usage logs and stats. Built in its own issue; for now it mirrors the options and answers its health route. */
const billingPlugin: FastifyPluginAsync<BillingPluginOptions> = async (app, { infra }) => {
  useAccessControl(app, 'billing');
  const options = await createOptionsMirror({ bus: infra.bus, logger: infra.logger });
  app.addHook('onClose', () => options.close());
  registerDiagnostics(app, 'billing', options);
};

export default billingPlugin;
