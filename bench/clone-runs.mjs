// bench/clone-runs.mjs — an archive of many runs made from one real run, for
// the benchmarks that ask how the API and the pages hold up with thousands
// of runs (bench/archive-10k.mjs, bench/api-read --runs N).
//
// cloneRuns(db, n, run = 1) copies run `run` of the archive file db (the
// daemon that writes it stopped) until the archive holds n runs, its
// results and, from schema 8, its tests' stored summaries too (the list
// shows a headline per run), with varied profiles, file systems, cluster
// sizes, labels, targets and dates: python3's sqlite3 module, straight into
// the file. Returns the count of runs the archive then holds.
import { execFileSync } from 'node:child_process';

const py = `
import sqlite3, sys, json, uuid
db = sqlite3.connect(sys.argv[1]); n = int(sys.argv[2]); src = int(sys.argv[3])
cols = [c[1] for c in db.execute("PRAGMA table_info(runs)") if c[1] != 'id']
rcols = [c[1] for c in db.execute("PRAGMA table_info(results)") if c[1] not in ('id', 'run_id')]
# schema 8 on: each test's stored summary, cloned with the results (seq: the
# clone's first result id of the test)
scols = [c[1] for c in db.execute("PRAGMA table_info(test_summaries)") if c[1] not in ('run_id', 'seq')]
run = dict(zip(cols, db.execute("SELECT %s FROM runs WHERE id=?" % ",".join(cols), (src,)).fetchone()))
fss = ['ext4', 'xfs', 'btrfs', 'ntfs']; clusters = [4096, 16384, 65536]
have = db.execute("SELECT count(*) FROM runs").fetchone()[0]
with db:
    for i in range(have + 1, n + 1):
        r = dict(run)
        fs = fss[i % 4]; cl = clusters[i % 3]
        probe = json.loads(r['probe']); probe['fs_type'] = fs; probe['fs_block_size'] = cl
        r['probe'] = json.dumps(probe); r['fs_type'] = fs
        r['labels'] = json.dumps(['bench', 'before' if i % 2 else 'after', 'batch-%d' % (i % 50)])
        r['target'] = '/mnt/vol%d' % (i % 20)
        r['profile'] = ['custom', 'cdm-default', 'seq-sweep'][i % 3]
        r['started_at'] = '2026-%02d-%02dT%02d:00:00Z' % (1 + i % 11, 1 + i % 28, i % 24)
        r['job_id'] = None
        if 'uuid' in r:
            r['uuid'] = str(uuid.uuid4())  # unique (runs_uuid)
        cur = db.execute("INSERT INTO runs(%s) VALUES (%s)" % (",".join(cols), ",".join("?" * len(cols))), [r[c] for c in cols])
        db.execute("INSERT INTO results(run_id, %s) SELECT ?, %s FROM results WHERE run_id=?" % (",".join(rcols), ",".join(rcols)),
                   (cur.lastrowid, src))
        if scols:
            db.execute("INSERT INTO test_summaries(run_id, seq, %s) SELECT ?1, (SELECT min(id) FROM results r WHERE r.run_id=?1"
                       " AND r.test=s.test AND r.rw=s.rw), %s FROM test_summaries s WHERE run_id=?2" % (",".join(scols), ",".join(scols)),
                       (cur.lastrowid, src))
print(db.execute("SELECT count(*) FROM runs").fetchone()[0])
`;

/** Clones run `run` of archive file db until it holds n runs; the count. */
export function cloneRuns(db, n, run = 1) {
  return Number(execFileSync('python3', ['-c', py, db, String(n), String(run)], { encoding: 'utf8' }).trim());
}
