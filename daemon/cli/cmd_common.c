/*
 * cmd_common — what the commands share: their data directory (DATA:
 * storbench.db, scratch/, storbench.pid), one process per directory at a
 * time, and the presets their usage texts list.
 *
 * Design: the lock is the OS's (sys_lock_dir: held while the process lives,
 * released by the kernel when it dies, so a crash leaves no stale lock);
 * the pid file beside it only lets the refusal name the process that holds
 * it. Calls nothing else of the commands.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "os/os.h"
#include "platform/log.h"
#include "platform/sys.h"
#include "presets/preset.h"

/*
 * Locks the data directory for this daemon (sys_lock_dir) and writes our
 * pid into DATA/storbench.pid, so that a second daemon on the same data
 * directory stops before it touches the archive: it would otherwise take the
 * first one's running job for a crash and remove its test file. Returns 0 or
 * -1 (logged).
 */
int cmd_lock_data_dir(const char *dir)
{
	char path[PATH_MAX], pid[32] = "";
	int pf, n, rc;

	if (snprintf(path, sizeof(path), "%s/storbench.pid", dir) >=
	    (int)sizeof(path))
		return -1;
	rc = sys_lock_dir(dir, path);
	if (rc == -EBUSY) {
		pf = sys_open_private(path, SYS_OPEN_READ);
		n = pf >= 0 ? (int)read(pf, pid, sizeof(pid) - 1) : 0;
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		if (pf >= 0)
			close(pf);
		log_error(
			"another storbench (pid %s) is serving %s; one daemon "
			"per data directory",
			pid[0] ? pid : "?", dir);
		return -1;
	}
	if (rc < 0) {
		log_error("data directory %s: %s", dir, strerror(-rc));
		return -1;
	}
	if (rc > 0)
		log_warn("could not write the pid into %s", path);
	return 0;
}

void cmd_bad_option(const char *cmd, int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	int n = (int)strcspn(arg, "=");

	if (c != ':' && c != '?')
		return; /* an option the command knows, wrongly placed */
	if (c == '?' && optopt && (arg[0] != '-' || arg[1] != '-'))
		fprintf(stderr, "storbench %s: unknown option -%c\n", cmd,
			optopt);
	else
		fprintf(stderr, "storbench %s: %.*s%s\n", cmd, n, arg,
			c == ':' ? " needs a value" : ": unknown option");
}

void cmd_usage(FILE *f, const char *usage)
{
	const struct preset *p;
	char list[2048] = "";

	for (size_t i = 0; (p = preset_at(i)) != NULL; i++) {
		size_t k = strlen(list);
		if (p->flags & PRESET_TESTS)
			continue; /* its tests come through the API */
		snprintf(list + k, sizeof(list) - k,
			 "                        %-14s %s\n", p->name,
			 p->title);
	}
	const char *at = strstr(usage, "%s");

	if (!at) {
		fputs(usage, f);
		return;
	}
	fwrite(usage, 1, (size_t)(at - usage), f);
	fputs(list, f);
	fputs(at + 2, f);
}

/*
 * Reads the API token from path, or — when path is our default and no file
 * is there — creates it: 32 random bytes as 64 hex digits, a new file, not
 * through a link, private (sys_open_private: mode 0600; Windows' access list).
 * A token shorter than 16 characters, or a file others may read, is refused.
 * Returns 0 or a negative errno (logged).
 */
int cmd_load_token(const char *path, int create, char *tok, size_t len)
{
	unsigned char raw[32];
	struct stat st;
	ssize_t n;
	char buf[512], who[200], fix[PATH_MAX + 200];
	int fd = sys_open_private(path, SYS_OPEN_READ), rc = 0;

	if (fd == -ENOENT && create) {
		fd = sys_open_private(path, SYS_OPEN_NEW);
		if (fd < 0 || os_random(raw, sizeof(raw)) != 0) {
			rc = fd < 0 ? fd : -EIO;
			goto out;
		}
		for (size_t i = 0; i < sizeof(raw); i++)
			snprintf(tok + 2 * i, len - 2 * i, "%02x", raw[i]);
		os_wipe(raw, sizeof(raw));
		if (write(fd, tok, strlen(tok)) != (ssize_t)strlen(tok) ||
		    write(fd, "\n", 1) != 1 || sys_fsync(fd) != 0) {
			rc = -EIO;
			unlink(path);
		} else {
			log_info("created the API token in %s (%s)", path,
				 sys_private_words());
		}
		goto out;
	}
	if (fd < 0) {
		rc = fd;
		log_error("API token %s: %s", path, strerror(-rc));
		goto out;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		log_error("API token %s: not a regular file", path);
		goto out;
	}
	if (sys_fd_shared(fd, who, sizeof(who))) {
		rc = -EPERM;
		sys_private_fix(path, fix, sizeof(fix));
		log_error("API token %s: %s; make it private: %s", path, who,
			  fix);
		goto out;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (n >= 2 &&
	    (memchr(buf, '\0', (size_t)n) || ((unsigned char)buf[0] == 0xFF &&
					      (unsigned char)buf[1] == 0xFE))) {
		rc = -EINVAL; /* PowerShell 5's `>` and Out-File write that */
		log_error("API token %s: saved as UTF-16; save it as ASCII "
			  "or UTF-8 (Set-Content -Encoding ascii)",
			  path);
		goto out;
	}
	if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) /* Notepad's BOM */
		memmove(buf, buf + 3, (size_t)n - 2);
	buf[strcspn(buf, "\r\n")] = '\0';
	if (strlen(buf) >= len) {
		rc = -EINVAL;
		log_error("API token %s: longer than %zu characters", path,
			  len - 1);
		goto out;
	}
	memcpy(tok, buf, strlen(buf) + 1);
	if (strlen(tok) < 16 || strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"
					    "ghijklmnopqrstuvwxyz0123456789"
					    "-._~+/=") != strlen(tok)) {
		rc = -EINVAL;
		log_error("API token %s: one line of 16 to %zu characters "
			  "from A-Z a-z 0-9 - . _ ~ + / =",
			  path, len - 1);
	}
out:
	os_wipe(buf, sizeof(buf));
	if (rc < 0)
		os_wipe(tok, len);
	if (fd >= 0)
		close(fd);
	return rc;
}
