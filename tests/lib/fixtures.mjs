// tests/lib/fixtures.mjs — where the real result files of other tools are
// (../shared/fixtures beside the clone): STORBENCH_FIXTURES when set, else
// beside the clone, else the machine's copy (/work/shared/fixtures). A test
// that needs them skips, saying `missing`, when none is there.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const beside = path.resolve(repo, '..', 'shared', 'fixtures');

/** The fixtures folder (which may not exist: see missing). */
export const FIXTURES = process.env.STORBENCH_FIXTURES ??
  [beside, '/work/shared/fixtures'].find((p) => fs.existsSync(p)) ?? beside;

/** false when FIXTURES is there, else why a test that needs it skips. */
export const missing = fs.existsSync(FIXTURES) ? false : `no fixtures at ${FIXTURES} (set STORBENCH_FIXTURES)`;
