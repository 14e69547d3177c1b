/*
 * sys_linux — sys.h on Linux: lstat for what is at a path, realpath, O_PATH
 * directory handles named through /proc/self/fd, block devices by dev_t with
 * their holders found in /sys and mounts in /proc/self/mountinfo, flock on the
 * data directory, mkdtemp, open with O_NOFOLLOW | O_CLOEXEC for private files,
 * setrlimit, blocked signals taken with sigtimedwait, nftw.
 */
#include "sys.h"

#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/fs.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

int sys_path_absolute(const char *path)
{
	return path[0] == '/';
}

int sys_path_sep(int c)
{
	return c == '/';
}

/* Linux reaches shares through the smb back-end (smb:// URLs), never
 * through a path: "//x/y" is "/x/y". */
int sys_path_share(const char *path)
{
	(void)path;
	return 0;
}

int sys_share_connect(const char *share, const char *user, const char *domain,
		      const char *password, intptr_t *h, char *why, size_t len)
{
	(void)share, (void)user, (void)domain, (void)password;
	*h = -1;
	snprintf(why, len, "no share is reached through a path on Linux");
	return -EOPNOTSUPP;
}

void sys_share_release(intptr_t h)
{
	(void)h;
}

int sys_path_kind(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return SYS_KIND_DIR;
	if (S_ISREG(st.st_mode))
		return SYS_KIND_FILE;
	if (S_ISLNK(st.st_mode))
		return SYS_KIND_LINK;
	if (S_ISBLK(st.st_mode))
		return SYS_KIND_DEVICE;
	return SYS_KIND_OTHER;
}

void sys_args_utf8(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

int sys_realpath(const char *path, char *real)
{
	return realpath(path, real) ? 0 : -errno;
}

int sys_dir_open(const char *dir, intptr_t *h, char *real, size_t len)
{
	char link[64];
	ssize_t n;
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	*h = -1;
	if (fd < 0)
		return -errno;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, len - 1);
	if (n <= 0 || (size_t)n >= len - 1 || real[0] != '/') {
		real[0] = '\0';
		close(fd);
		return -EXDEV; /* cannot tell where it is */
	}
	real[n] = '\0';
	*h = fd;
	return 0;
}

int sys_dir_child(intptr_t h, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "/proc/self/fd/%d/%s", (int)h, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void sys_dir_close(intptr_t h)
{
	if (h >= 0)
		close((int)h);
}

int sys_device_id(const char *path, char *real, uint64_t *id)
{
	struct stat st;

	if (!realpath(path, real) || stat(real, &st) != 0 ||
	    !S_ISBLK(st.st_mode))
		return -ENOTBLK;
	*id = (uint64_t)st.st_rdev;
	return 0;
}

/* The mount point of a filesystem on device d, from mountinfo, or "". */
static void mounted_at(dev_t d, char *at, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	unsigned ma, mi;

	at[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char mp[2048];
		if (sscanf(line, "%*u %*u %u:%u %*s %2047s", &ma, &mi, mp) ==
			    3 &&
		    makedev(ma, mi) == d) {
			snprintf(at, len, "%.400s", mp);
			break;
		}
	}
	fclose(f);
}

/* Is block device d, at node, busy (mounted, held, or open O_EXCL)? 0
 * free, -EBUSY with the sentence, or another -errno. */
static int device_busy(const char *name, const char *node, dev_t d, char *why,
		       size_t len)
{
	char at[512];
	struct stat st;
	int fd, e;

	/* a node of another device under that name: not ours to judge */
	if (stat(node, &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != d)
		return 0;
	fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	e = errno;
	if (e != EBUSY)
		return -e;
	mounted_at(d, at, sizeof(at));
	if (at[0])
		snprintf(why, len,
			 "%s: %s is mounted at %s; storbench writes "
			 "only to a device nothing uses",
			 name, node, at);
	else
		snprintf(why, len,
			 "%s: %s is in use (held by a filesystem, "
			 "LVM, md or another program)",
			 name, node);
	return -EBUSY;
}

int sys_device_free(const char *name, const char *real, uint64_t id, char *why,
		    size_t len)
{
	dev_t d = (dev_t)id;
	char sys[96];
	DIR *dir;
	struct dirent *de;
	int rc;

	if ((rc = device_busy(name, real, d, why, len)) < 0)
		return rc;
	/* its partitions: /sys/dev/block/M:m/<name>N/dev */
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(d), minor(d));
	if (!(dir = opendir(sys)))
		return 0;
	while ((de = readdir(dir)) != NULL) {
		char p[PATH_MAX];
		unsigned ma, mi;
		FILE *f;
		int ok;
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/partition", sys, de->d_name);
		if (access(p, F_OK) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s/dev", sys, de->d_name);
		if (!(f = fopen(p, "re")))
			continue;
		ok = fscanf(f, "%u:%u", &ma, &mi) == 2;
		fclose(f);
		snprintf(p, sizeof(p), "/dev/%s", de->d_name);
		if (ok &&
		    (rc = device_busy(name, p, makedev(ma, mi), why, len)) < 0)
			break;
	}
	closedir(dir);
	return rc;
}

int sys_device_size(const char *real, uint64_t *bytes)
{
	int fd = open(real, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, bytes) != 0)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	return rc;
}

int sys_device_hold(const char *real, intptr_t *h)
{
	int fd = open(real, O_RDONLY | O_EXCL | O_CLOEXEC);

	*h = fd;
	return fd < 0 ? -errno : 0;
}

void sys_device_release(intptr_t h)
{
	if (h >= 0)
		close((int)h);
}

int sys_device_discard(const char *real, uint64_t offset, uint64_t len,
		       char *why, size_t why_len)
{
	uint64_t range[2] = { offset, len };
	int fd = open(real, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0) {
		rc = -errno;
		snprintf(why, why_len, "opening %s to discard failed: %s", real,
			 strerror(-rc));
		return rc;
	}
	if (ioctl(fd, BLKDISCARD, range) < 0) {
		rc = errno == EINVAL || errno == ENOTTY ? -EOPNOTSUPP : -errno;
		snprintf(why, why_len, "%s does not take a discard: %s", real,
			 strerror(errno));
	}
	close(fd);
	return rc;
}

/*
 * An exclusive flock on the data directory itself (not on a file in it, so
 * that deleting a "stale" file cannot defeat it), kept for the life of the
 * process; the pid written into pidfile for the refusal's sentence.
 */
/* The data directory, flocked (sys_lock_dir), or -1. */
static int lock_fd = -1;

int sys_lock_dir(const char *dir, const char *pidfile)
{
	char pid[32];
	int fd, pf, n;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return -EBUSY;
	}
	lock_fd = fd;
	pf = open(pidfile,
		  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (pf < 0 || write(pf, pid, (size_t)n) != n) {
		if (pf >= 0)
			close(pf);
		return 1; /* locked; the pid could not be written */
	}
	close(pf);
	return 0;
}

void sys_unlock_dir(void)
{
	if (lock_fd >= 0)
		close(lock_fd);
	lock_fd = -1;
}

int sys_mkdir_private(const char *path)
{
	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	return -errno;
}

int sys_temp_dir(const char *prefix, char *path, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(path, len, "%s/%s-XXXXXX", tmp ? tmp : "/tmp", prefix);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return mkdtemp(path) ? 0 : -errno;
}

int sys_open_private(const char *path, int how)
{
	int fd;

	if (how == SYS_OPEN_READ)
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	else if (how == SYS_OPEN_NEW)
		fd = open(path,
			  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0600);
	else
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (how == SYS_OPEN_OWN && fchmod(fd, 0600) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int sys_fsync(int fd)
{
	return fsync(fd) == 0 ? 0 : -errno;
}

int sys_fd_shared(int fd, char *who, size_t len)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || !(st.st_mode & 077))
		return 0;
	snprintf(who, len, "others may read it (mode %03o)",
		 (unsigned)(st.st_mode & 0777));
	return 1;
}

int sys_dir_open_to_all(const char *path, char *who, size_t len)
{
	struct stat st;

	if (stat(path, &st) != 0 || !(st.st_mode & S_IWOTH))
		return 0;
	snprintf(who, len, "every local user may write there (mode %04o)",
		 (unsigned)(st.st_mode & 07777));
	return 1;
}

const char *sys_private_words(void)
{
	return "mode 0600";
}

void sys_private_fix(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "chmod 600 %s", path);
}

static int unlink_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void sys_remove_tree(const char *path)
{
	nftw(path, unlink_one, 16, FTW_DEPTH | FTW_PHYS);
}

void sys_no_core_dumps(void)
{
	struct rlimit nocore = { 0, 0 };

	setrlimit(RLIMIT_CORE, &nocore);
}

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP); /* a closed terminal stops us cleanly too */
	sigaddset(set, SIGPIPE);
}

void sys_hold_stop_requests(void)
{
	sigset_t set;

	stop_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void sys_serving(void)
{
	/* (the systemd unit is Type=exec: nothing to tell it) */
}

int sys_wait_stop(int timeout_ms)
{
	struct timespec t = { timeout_ms / 1000,
			      (long)(timeout_ms % 1000) * 1000000L };
	sigset_t set;
	int sig;

	stop_set(&set);
	for (;;) {
		if (timeout_ms < 0) {
			if (sigwait(&set, &sig) != 0)
				return 0;
		} else {
			sig = sigtimedwait(&set, NULL, &t);
		}
		if (sig == SIGPIPE)
			continue;
		return sig > 0 ? sig : 0;
	}
}

void sys_tighten(const char *dir, const char *scratch, const char *const *own,
		 size_t n)
{
	char path[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, own[i]) >=
		    (int)sizeof(path))
			return;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 077) && chmod(path, 0600) == 0)
			log_warn("%s was readable by others; now 0600", path);
	}
	if (stat(dir, &st) == 0 && (st.st_mode & 077))
		log_warn("data directory %s is open to others (mode %03o); "
			 "storbench keeps the archive and credentials there: "
			 "chmod 700 it",
			 dir, (unsigned)(st.st_mode & 0777));
	if (lstat(scratch, &st) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & 077) && chmod(scratch, 0700) == 0)
		log_warn("%s was open to others (mode %03o); now 0700", scratch,
			 (unsigned)(st.st_mode & 0777));
}
