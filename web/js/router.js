// Hash routes: #/ (home: form, jobs, import, archive), #/runs (the same,
// scrolled to the archive), #/runs/ID (one run), #/compare?QUERY,
// #/history?QUERY (a target's history).

import { $ } from './dom.js';
import { showRun, stopRunView } from './run.js';
import { showCompare, stopCompareView } from './compare.js';
import { loadRuns } from './archive.js';
import { showHistory, stopHistoryView } from './history.js';

function show(id) {
  for (const v of ['#view-home', '#view-run', '#view-compare', '#view-history']) $(v).hidden = v !== id;
}

export function route() {
  const hash = location.hash || '#/';
  const run = /^#\/runs\/(\d+)\/?$/.exec(hash);
  const cmp = /^#\/compare\?(.+)$/.exec(hash);
  const hist = /^#\/history\?(.+)$/.exec(hash);
  for (const a of document.querySelectorAll('[data-nav]')) a.classList.remove('active');
  if (!hist) stopHistoryView();
  if (hist) {
    stopRunView();
    stopCompareView();
    show('#view-history');
    showHistory(hist[1]);
    window.scrollTo(0, 0);
    return;
  }
  if (cmp) {
    stopRunView();
    show('#view-compare');
    showCompare(cmp[1]);
    window.scrollTo(0, 0);
    return;
  }
  stopCompareView();
  if (run) {
    show('#view-run');
    showRun(Number(run[1]));
    window.scrollTo(0, 0);
    return;
  }
  stopRunView();
  show('#view-home');
  if (hash === '#/runs') {
    document.querySelector('[data-nav="runs"]').classList.add('active');
    $('#archive').scrollIntoView({ block: 'start' });
  } else {
    document.querySelector('[data-nav="home"]').classList.add('active');
  }
  loadRuns();
}

export function initRouter() {
  window.addEventListener('hashchange', route);
  route();
}
