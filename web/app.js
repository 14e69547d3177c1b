// storbench dashboard: the entry module. Plain ES modules under js/, no
// build step, no framework; talks only to the daemon that served it (same
// origin, /api/v1/...). Chart.js is the vendored UMD build (window.Chart),
// loaded by index.html before this module.
//
//   js/dom.js       DOM builder and shared bits of markup
//   js/format.js    numbers, sizes, times
//   js/api.js       fetch with the token, problem+json errors, downloads
//   js/state.js     the shared state: GET /api/v1/profiles and its lookups
//   js/charts.js    Chart.js helpers
//   js/forms.js     inputs generated from the API's field descriptors
//   js/jobform.js   the New benchmark form
//   js/jobs.js      the job list, live events, polling
//   js/archive.js   the run archive, selection for comparing
//   js/import.js    the import box
//   js/run.js       a run page (tiles, charts), with js/runviews.js (the
//                   profile's view), js/steady.js (the SNIA PTS steady
//                   state's rounds) and js/rundetails.js (the detail cards)
//   js/compare.js   a comparison
//   js/fleet.js     multi-host jobs: a line per host, the run's Hosts card
//   js/health.js    the daemon's status in the top bar
//   js/router.js    hash routes

import { interceptApiLinks } from './js/api.js';
import { chartDefaults } from './js/charts.js';
import { initJobForm } from './js/jobform.js';
import { initArchive } from './js/archive.js';
import { initImport } from './js/import.js';
import { pollJobs, liveStream } from './js/jobs.js';
import { pollHealth } from './js/health.js';
import { initRouter } from './js/router.js';

export { fmtMBs } from './js/format.js';

chartDefaults();
initJobForm();
initArchive();
initImport();
interceptApiLinks();
pollJobs();
liveStream();
pollHealth();
initRouter();
