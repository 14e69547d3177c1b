/*
 * test_probe.c — probe against the truth the system tools tell.
 *
 * Filesystem fields are checked against findmnt(8), block-device fields
 * against lsblk(8), sizes against statvfs(3), machine fields against uname(2)
 * and sysconf(3). The mountinfo parser is also fed a synthetic table
 * (stacked mounts, escapes, optional tags, a "/dev" vs "/devices" prefix),
 * and the sysfs reader a fake tree with a partition inside its disk.
 * A check whose tool or path is missing on the machine is skipped, saying
 * why (TEST_SKIP). Root-only: a tmpfs mounted on a directory with a space in
 * its name; skipped without the privilege.
 */
#include "probe/probe.h"
#include "test.h"

#include <errno.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Internal to probe.c, exported for this test only. */
void probe_unescape(char *s);
int probe_mountinfo_match(FILE *mountinfo, const char *real_path,
			  unsigned int maj, unsigned int min, struct probe *p);
void probe_sysfs_block(const char *dir, struct probe *p);

/*
 * Runs a shell command; its first output line, trimmed of spaces, goes to
 * out[n]. Returns 0 when a non-empty line was read.
 */
static int run_cmd(const char *cmd, char *out, size_t n)
{
	FILE *f = popen(cmd, "r");
	size_t len, lead;

	out[0] = '\0';
	if (!f)
		return -1;
	if (!fgets(out, (int)n, f))
		out[0] = '\0';
	pclose(f);
	len = strlen(out);
	while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
		out[--len] = '\0';
	lead = strspn(out, " ");
	memmove(out, out + lead, len - lead + 1);
	return len > lead ? 0 : -1;
}

/* The probe of path agrees with findmnt on type and mount point. */
static void check_findmnt(const char *path)
{
	char cmd[512], fstype[64], target[1024];
	struct probe p;

	ASSERT_EQ(probe_path(path, &p), 0);
	snprintf(cmd, sizeof(cmd), "findmnt -n -o FSTYPE -T '%s' 2>/dev/null",
		 path);
	if (run_cmd(cmd, fstype, sizeof(fstype)) != 0) {
		TEST_SKIP("findmnt unavailable: %s not checked", path);
	}
	snprintf(cmd, sizeof(cmd), "findmnt -n -o TARGET -T '%s'", path);
	ASSERT_EQ(run_cmd(cmd, target, sizeof(target)), 0);
	ASSERT_STR_EQ(p.fs_type, fstype);
	ASSERT_STR_EQ(p.mount_point, target);
	ASSERT_TRUE(p.mount_options[0] != '\0');
}

static void test_fs_matches_findmnt(void)
{
	const char *paths[] = { "/", "/tmp", ".", "/dev/shm", "/proc/self" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (access(paths[i], F_OK) != 0)
			continue;
		check_findmnt(paths[i]);
		if (test_failed_) {
			fprintf(stderr, "  path: %s\n", paths[i]);
			return;
		}
	}
}

static void test_sizes_match_statvfs(void)
{
	struct statvfs vfs;
	struct probe p;
	int64_t free_bytes = -1, total_bytes = -1, slack;

	ASSERT_EQ(statvfs("/tmp", &vfs), 0);
	ASSERT_EQ(probe_path("/tmp", &p), 0);
	ASSERT_EQ(p.fs_block_size, vfs.f_bsize);
	ASSERT_EQ(p.total_bytes, (int64_t)vfs.f_blocks * (int64_t)vfs.f_frsize);
	slack = p.total_bytes / 100; /* other writers between the two calls */
	ASSERT_TRUE(p.free_bytes >= 0 && p.free_bytes <= p.total_bytes);
	ASSERT_TRUE(llabs(p.free_bytes -
			  (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize) <=
		    slack);
	ASSERT_EQ(probe_space("/tmp", &free_bytes, &total_bytes), 0);
	ASSERT_TRUE(llabs(free_bytes - p.free_bytes) <= slack);
	ASSERT_EQ(total_bytes, p.total_bytes);
}

static void test_machine(void)
{
	struct utsname uts;
	struct probe p;
	char host[256];

	ASSERT_EQ(probe_path(".", &p), 0);
	ASSERT_EQ(uname(&uts), 0);
	ASSERT_EQ(gethostname(host, sizeof(host)), 0);
	host[sizeof(host) - 1] = '\0';
	ASSERT_STR_EQ(p.hostname, host);
	ASSERT_STR_EQ(p.kernel, uts.release);
	ASSERT_EQ(p.cpus, sysconf(_SC_NPROCESSORS_ONLN));
	ASSERT_EQ(p.memory_bytes,
		  (int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE));
	ASSERT_TRUE(p.memory_bytes > 0);
}

/* Whole disk and rotational flag of "/" agree with lsblk. */
static void test_block_matches_lsblk(void)
{
	char cmd[1200], type[32], name[128], rota[8];
	struct probe p;

	ASSERT_EQ(probe_path("/", &p), 0);
	if (strncmp(p.device, "/dev/", 5) != 0 || strchr(p.device, '\'')) {
		TEST_SKIP("/ is not on a block device");
	}
	snprintf(cmd, sizeof(cmd), "lsblk -ndo TYPE '%s' 2>/dev/null",
		 p.device);
	if (run_cmd(cmd, type, sizeof(type)) != 0 ||
	    (strcmp(type, "disk") != 0 && strcmp(type, "part") != 0)) {
		TEST_SKIP("lsblk unavailable or / not on a disk");
	}
	snprintf(cmd, sizeof(cmd), "lsblk -ndo %s '%s'",
		 strcmp(type, "part") == 0 ? "PKNAME" : "NAME", p.device);
	ASSERT_EQ(run_cmd(cmd, name, sizeof(name)), 0);
	ASSERT_STR_EQ(p.disk, name);
	snprintf(cmd, sizeof(cmd), "lsblk -ndo ROTA '%s'", p.device);
	ASSERT_EQ(run_cmd(cmd, rota, sizeof(rota)), 0);
	ASSERT_EQ(p.rotational, strcmp(rota, "1") == 0 ? 1 : 0);
}

static void test_missing_path(void)
{
	struct probe p;
	int64_t free_bytes = 42, total_bytes = 42;

	ASSERT_EQ(probe_path("/nonexistent/storbench/x", &p), -ENOENT);
	ASSERT_EQ(p.rotational, -1);
	ASSERT_STR_EQ(p.fs_type, "");
	ASSERT_EQ(probe_path("/proc/self/status/x", &p), -ENOTDIR);
	ASSERT_EQ(probe_space("/nonexistent/storbench/x", &free_bytes,
			      &total_bytes),
		  -ENOENT);
	ASSERT_EQ(free_bytes, 42);
}

static void test_unescape(void)
{
	char a[] = "/mnt/a\\040b\\011c\\012d\\134e";
	char b[] = "/plain\\9x\\04";

	probe_unescape(a);
	ASSERT_STR_EQ(a, "/mnt/a b\tc\nd\\e");
	probe_unescape(b);
	ASSERT_STR_EQ(b, "/plain\\9x\\04");
}

static const char mountinfo_[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 "
	"rw,errors=remount-ro\n"
	"30 22 0:40 / /dev rw,nosuid - devtmpfs udev rw,mode=755\n"
	"31 22 8:17 / /data\\040disk rw,noatime shared:5 master:1 - xfs "
	"/dev/sdb1 rw,attr2\n"
	"32 31 0:50 / /data\\040disk rw - tmpfs none rw,size=10k\n"
	"33 22 8:33 / /devices rw - ext4 /dev/sdc1 rw\n"
	"garbage line\n";

/* Probes real_path on maj:min against the synthetic table above. */
static int match(const char *real_path, unsigned int maj, unsigned int min,
		 struct probe *p)
{
	FILE *f = fmemopen((void *)mountinfo_, sizeof(mountinfo_) - 1, "r");
	int rc;

	memset(p, 0, sizeof(*p));
	if (!f)
		return -errno;
	rc = probe_mountinfo_match(f, real_path, maj, min, p);
	fclose(f);
	return rc;
}

static void test_mountinfo_match(void)
{
	struct probe p;
	FILE *empty;

	/* the device picks the hidden xfs under the later tmpfs */
	ASSERT_EQ(match("/data disk/x", 8, 17, &p), 0);
	ASSERT_STR_EQ(p.mount_point, "/data disk");
	ASSERT_STR_EQ(p.fs_type, "xfs");
	ASSERT_STR_EQ(p.device, "/dev/sdb1");
	ASSERT_STR_EQ(p.mount_options, "rw,noatime,attr2");
	ASSERT_EQ(match("/data disk", 0, 50, &p), 0);
	ASSERT_STR_EQ(p.fs_type, "tmpfs");
	ASSERT_STR_EQ(p.device, "");
	/* "/dev" is not a prefix of "/devices" */
	ASSERT_EQ(match("/devices/y", 8, 33, &p), 0);
	ASSERT_STR_EQ(p.mount_point, "/devices");
	ASSERT_EQ(match("/dev/null", 0, 40, &p), 0);
	ASSERT_STR_EQ(p.fs_type, "devtmpfs");
	ASSERT_EQ(match("/home/u", 8, 1, &p), 0);
	ASSERT_STR_EQ(p.mount_point, "/");
	ASSERT_STR_EQ(p.mount_options, "rw,relatime,errors=remount-ro");
	/* no line carries the device: the longest prefix, later line wins */
	ASSERT_EQ(match("/data disk/sub", 0, 99, &p), 0);
	ASSERT_STR_EQ(p.fs_type, "tmpfs");
	/* a path beside the mount is not in it */
	ASSERT_EQ(match("/data diskette", 8, 17, &p), 0);
	ASSERT_STR_EQ(p.mount_point, "/");
	empty = fmemopen((void *)"", 1, "r");
	ASSERT_TRUE(empty != NULL);
	ASSERT_EQ(probe_mountinfo_match(empty, "/", 8, 1, &p), -ENOENT);
	fclose(empty);
}

/* Writes text to root/rel, creating the directories on the way. */
static int put_file(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A fake sysfs: disk0 with partition disk0p1, and a bare dm-0. */
static void check_fake_sysfs(const char *root)
{
	char dir[512];
	struct probe p;

	ASSERT_EQ(put_file(root, "disk0/device/model", "  QEMU HARDDISK \n"),
		  0);
	ASSERT_EQ(put_file(root, "disk0/queue/rotational", "0\n"), 0);
	ASSERT_EQ(put_file(root, "disk0/queue/write_cache", "write through\n"),
		  0);
	ASSERT_EQ(put_file(root, "disk0/device/rev", "2.5+\n"), 0);
	ASSERT_EQ(put_file(root, "disk0/queue/scheduler",
			   "none [mq-deadline] kyber bfq\n"),
		  0);
	ASSERT_EQ(put_file(root, "disk0/disk0p1/partition", "1\n"), 0);
	ASSERT_EQ(put_file(root, "dm-0/queue/rotational", "1\n"), 0);
	ASSERT_EQ(put_file(root, "dm-0/queue/scheduler", "none\n"), 0);
	ASSERT_EQ(put_file(root, "nvme0n1/device/firmware_rev", "3B2QGXA7\n"),
		  0);
	ASSERT_EQ(put_file(root, "nvme0n1/device/rev", "ignored\n"), 0);

	memset(&p, 0, sizeof(p));
	p.rotational = -1;
	snprintf(dir, sizeof(dir), "%s/disk0/disk0p1", root);
	probe_sysfs_block(dir, &p);
	ASSERT_STR_EQ(p.disk, "disk0");
	ASSERT_STR_EQ(p.device_model, "QEMU HARDDISK");
	ASSERT_EQ(p.rotational, 0);
	ASSERT_STR_EQ(p.write_cache, "write through");
	/* the whole disk's: a partition has no queue of its own */
	ASSERT_STR_EQ(p.firmware_rev, "2.5+");
	ASSERT_STR_EQ(p.scheduler, "mq-deadline");

	memset(&p, 0, sizeof(p));
	p.rotational = -1;
	snprintf(dir, sizeof(dir), "%s/dm-0", root);
	probe_sysfs_block(dir, &p);
	ASSERT_STR_EQ(p.disk, "dm-0");
	ASSERT_STR_EQ(p.device_model, "");
	ASSERT_EQ(p.rotational, 1);
	ASSERT_STR_EQ(p.write_cache, "");
	ASSERT_STR_EQ(p.firmware_rev, "");
	ASSERT_STR_EQ(p.scheduler, "none");

	/* NVMe: firmware_rev, before any rev */
	memset(&p, 0, sizeof(p));
	p.rotational = -1;
	snprintf(dir, sizeof(dir), "%s/nvme0n1", root);
	probe_sysfs_block(dir, &p);
	ASSERT_STR_EQ(p.firmware_rev, "3B2QGXA7");
	ASSERT_STR_EQ(p.scheduler, "");
}

static void test_sysfs_partition_to_disk(void)
{
	char root[] = "/tmp/storbench_sysfs.XXXXXX";
	char cmd[64];

	ASSERT_TRUE(mkdtemp(root) != NULL);
	check_fake_sysfs(root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ASSERT_EQ(system(cmd), 0);
}

static void check_tmpfs(const char *dir)
{
	char sub[256];
	struct probe p;

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	ASSERT_EQ(mkdir(sub, 0700), 0);
	ASSERT_EQ(probe_path(sub, &p), 0);
	ASSERT_STR_EQ(p.mount_point, dir);
	ASSERT_STR_EQ(p.fs_type, "tmpfs");
	ASSERT_STR_EQ(p.device, "storbench");
	ASSERT_STR_EQ(p.disk, "");
	ASSERT_EQ(p.rotational, -1);
	ASSERT_EQ(p.total_bytes, 1024 * 1024);
}

/* A mount point with a space exercises escapes through the real kernel. */
static void test_mount_with_space(void)
{
	char dir[] = "/tmp/storbench probe.XXXXXX";
	char sub[sizeof(dir) + 8];

	ASSERT_TRUE(mkdtemp(dir) != NULL);
	if (mount("storbench", dir, "tmpfs", 0, "size=1m") != 0) {
		int e = errno;
		rmdir(dir);
		TEST_SKIP("a tmpfs on a path with a space: mount: %s",
			  strerror(e));
	}
	check_tmpfs(dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	rmdir(sub);
	umount(dir);
	rmdir(dir);
}

/* fs_features' "cow" / "nocow": set, swapped, dropped; the rest kept. */
static void test_set_cow(void)
{
	struct probe p = { 0 };

	probe_set_cow(&p, PROBE_COW_ON);
	ASSERT_STR_EQ(p.fs_features, "cow");
	probe_set_cow(&p, PROBE_COW_OFF);
	ASSERT_STR_EQ(p.fs_features, "nocow");
	probe_set_cow(&p, PROBE_COW_NONE);
	ASSERT_STR_EQ(p.fs_features, "");
	snprintf(p.fs_features, sizeof(p.fs_features),
		 "sparse_files,cow,integrity_streams");
	probe_set_cow(&p, PROBE_COW_OFF);
	ASSERT_STR_EQ(p.fs_features, "sparse_files,integrity_streams,nocow");
	probe_set_cow(&p, PROBE_COW_ON);
	ASSERT_STR_EQ(p.fs_features, "sparse_files,integrity_streams,cow");
	/* a word that only starts like one is not it */
	snprintf(p.fs_features, sizeof(p.fs_features), "cowl,nocows");
	probe_set_cow(&p, PROBE_COW_NONE);
	ASSERT_STR_EQ(p.fs_features, "cowl,nocows");
	/* procfs: not a copy-on-write filesystem */
	ASSERT_EQ(probe_file_cow("/proc", NULL), PROBE_COW_NONE);
}

TEST_MAIN(test_set_cow, test_fs_matches_findmnt, test_sizes_match_statvfs,
	  test_machine, test_block_matches_lsblk, test_missing_path,
	  test_unescape, test_mountinfo_match, test_sysfs_partition_to_disk,
	  test_mount_with_space)
