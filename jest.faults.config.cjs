// `npm run test:faults`: the whole fault suite (tools/faults/suite.faults.ts), apart from `npm test`,
// which runs its quick subset (tools/faults/test/quick-faults.test.ts). One file, one worker: the
// scenarios kill and restart processes and servers in turn.
const base = require('./jest.config.cjs');
const services = base.projects.find((project) => project.displayName === 'services');

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: 1,
  projects: [{ ...services, displayName: 'faults', testMatch: ['<rootDir>/tools/faults/**/*.faults.ts'] }],
};
