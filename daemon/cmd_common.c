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
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "log.h"
#include "preset.h"
#include "sys.h"

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
		pf = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
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
