/*
 * test_smb.c — the SMB back-end against a real Samba server.
 *
 * Starts Debian's smbd on 127.0.0.1, on a high port, with a configuration in
 * a fresh directory under the current one: a share "bench" that needs a user
 * and password (no guest), the password set with smbpasswd in the test's own
 * passdb. Then the engine creates, fills, reads, writes and removes a file
 * on the share through smb:// URLs, and a wrong password and a missing share
 * fail with their errno. smbd is stopped at the end. Needs root (smbd and
 * its passdb) and smbd installed; says why it skips otherwise.
 */
#include "engine.h"
#include "test.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PORT 44545
#define MIB (1ULL << 20)

static char dir[PATH_MAX];
static char url[PATH_MAX + 64];
static pid_t smbd = -1;
static int skip;

static char cmd[4 * PATH_MAX];

static int port_open(void)
{
	char probe[128];

	snprintf(probe, sizeof(probe),
		 "bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d' 2>/dev/null", PORT);
	return system(probe) == 0;
}

static void test_start_smbd(void)
{
	char cwd[PATH_MAX - 64], conf[PATH_MAX + 32];
	FILE *f;

	if (geteuid() != 0 || access("/usr/sbin/smbd", X_OK) != 0) {
		printf("skip SMB tests: %s\n",
		       geteuid() != 0 ? "smbd and its passdb need root"
				      : "smbd is not installed (apt-get install samba)");
		skip = 1;
		return;
	}
	ASSERT_TRUE(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(dir, sizeof(dir), "%s/smb_test.XXXXXX", cwd);
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(conf, sizeof(conf), "%s/smb.conf", dir);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkdir -p private lock state cache run share", dir);
	ASSERT_EQ(system(cmd), 0);
	f = fopen(conf, "w");
	ASSERT_TRUE(f != NULL);
	fprintf(f,
		"[global]\n"
		"  server role = standalone server\n"
		"  smb ports = %d\n"
		"  interfaces = 127.0.0.1\n"
		"  bind interfaces only = yes\n"
		"  disable netbios = yes\n"
		"  private dir = %s/private\n"
		"  lock directory = %s/lock\n"
		"  state directory = %s/state\n"
		"  cache directory = %s/cache\n"
		"  pid directory = %s/run\n"
		"  passdb backend = tdbsam:%s/private/passdb.tdb\n"
		"  log file = %s/smbd.log\n"
		"  map to guest = never\n"
		"  server min protocol = SMB2_02\n"
		"[bench]\n"
		"  path = %s/share\n"
		"  read only = no\n"
		"  guest ok = no\n",
		PORT, dir, dir, dir, dir, dir, dir, dir, dir);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "printf 'sbpass\\nsbpass\\n' | smbpasswd -c '%s' -s -a root "
		 ">/dev/null",
		 conf);
	ASSERT_EQ(system(cmd), 0);
	smbd = fork();
	ASSERT_TRUE(smbd >= 0);
	if (smbd == 0) {
		/* its own session: smbd signals its whole process group when
		 * it stops, and that must not be us */
		setsid();
		execl("/usr/sbin/smbd", "smbd", "--foreground",
		      "--no-process-group", "--configfile", conf, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100 && !port_open(); i++)
		usleep(100000);
	ASSERT_TRUE(port_open());
	snprintf(url, sizeof(url), "smb://127.0.0.1:%d/bench/storbench-test.dat",
		 PORT);
	tgt_smb_set_auth("root", "sbpass", "WORKGROUP");
	tgt_smb_set_helper(STORBENCH_BIN_PATH);
}

/* Create, fill, measure reads and writes, remove — all over SMB. */
static void test_engine_over_smb(void)
{
	char err[256] = "", local[PATH_MAX + 64];
	struct engine_opts o = {.ops = &tgt_smb_ops, .path = url, .direct = 1,
				.error = err, .error_len = sizeof(err)};
	struct workload w = {.pattern = WL_RANDOM, .read_pct = 100,
			     .block_size = 65536, .queue_depth = 4,
			     .threads = 2, .file_size = 16 * MIB,
			     .duration_s = 0.5};
	struct result r;
	struct stat st;
	int direct = 0;

	if (skip)
		return;
	snprintf(w.name, sizeof(w.name), "smb");
	snprintf(local, sizeof(local), "%s/share/storbench-test.dat", dir);
	ASSERT_EQ(engine_prepare_file(&o, 16 * MIB, WL_DATA_RANDOM, &direct), 0);
	if (err[0])
		fprintf(stderr, "  %s\n", err);
	/* the file is on the share's disk, whole */
	ASSERT_EQ(stat(local, &st), 0);
	ASSERT_EQ(st.st_size, (off_t)(16 * MIB));
	/* a second create must not touch it */
	ASSERT_EQ(engine_prepare_file(&o, 16 * MIB, WL_DATA_RANDOM, &direct),
		  -EEXIST);
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(r.ios > 10);
	ASSERT_U64_EQ(r.bytes, r.ios * 65536);
	/* QD 4 × 2 threads = 8 connections, one request each: Little */
	ASSERT_NEAR_REL(r.iops * r.lat_mean_us / 1e6, 8.0, 0.1);
	w.read_pct = 0;
	w.pattern = WL_SEQUENTIAL;
	ASSERT_EQ(engine_run(&o, &w, &r), 0);
	ASSERT_TRUE(r.ios > 10);
	ASSERT_EQ(tgt_unlink(&tgt_smb_ops, url), 0);
	ASSERT_TRUE(stat(local, &st) != 0 && errno == ENOENT);
}

/* A wrong password and a missing share fail with their errno. */
static void test_errors(void)
{
	char err[256] = "", bad[PATH_MAX + 64];
	struct engine_opts o = {.ops = &tgt_smb_ops, .path = url, .direct = 1,
				.error = err, .error_len = sizeof(err)};
	int direct, rc;

	if (skip)
		return;
	tgt_smb_set_auth("root", "wrong", "WORKGROUP");
	rc = engine_prepare_file(&o, MIB, WL_DATA_RANDOM, &direct);
	ASSERT_TRUE(rc == -EACCES || rc == -EPERM);
	tgt_smb_set_auth("root", "sbpass", "WORKGROUP");
	snprintf(bad, sizeof(bad), "smb://127.0.0.1:%d/nope/x.dat", PORT);
	o.path = bad;
	rc = engine_prepare_file(&o, MIB, WL_DATA_RANDOM, &direct);
	ASSERT_TRUE(rc == -ENOENT || rc == -ENODEV);
}

static void test_stop_smbd(void)
{
	int status;

	if (skip)
		return;
	ASSERT_EQ(kill(smbd, SIGTERM), 0);
	ASSERT_EQ(waitpid(smbd, &status, 0), smbd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ASSERT_EQ(system(cmd), 0);
}

TEST_MAIN(test_start_smbd, test_engine_over_smb, test_errors, test_stop_smbd)
