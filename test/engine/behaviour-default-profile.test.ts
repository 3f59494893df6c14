/**
 * The shared behaviour suite against an engine given the default profile, written out as a file
 * and read back: every entry declared, and the engine made to take its profile path on
 * every answer, so the defaults prove to be exactly today's behaviour.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { defaultProfileText } from '../../src/cli/profile-command.js';
import type { ServerProfile } from '../../src/engine/index.js';
import { readProfileFile } from '../../src/profile/load.js';
import { inProcessTarget } from '../support/in-process-target.js';
import type { TargetFactory } from '../support/targets.js';
import { behaviourSuite } from './behaviour.suite.js';

let profile: ServerProfile;

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'eh-default-profile-')), 'profile.yaml');
  writeFileSync(file, defaultProfileText());
  // isDefault false: the engine applies each declared entry instead of skipping the profile.
  profile = { ...(await readProfileFile(file)), isDefault: false };
});

const withDefaultProfile: TargetFactory = {
  name: 'in-process engine with the default profile read back',
  create: (options = {}) => inProcessTarget.create({ ...options, profile }),
};

behaviourSuite(withDefaultProfile);
