/*
 * sys_smoke — daemon/platform/sys_win.c under wine64 (or Windows), one sys.h
 * call per command, its answer on stdout:
 *
 *   sys_smoke args ARG...        argv as sys_args_utf8 gives it
 *   sys_smoke abs PATH...        sys_path_absolute
 *   sys_smoke real PATH...       sys_realpath
 *   sys_smoke kind PATH...       sys_path_kind
 *   sys_smoke lock DIR [SECONDS] sys_lock_dir twice in this process, then
 *                                holds the lock SECONDS (another process
 *                                started meanwhile must get -EBUSY)
 *   sys_smoke held DIR NAME      sys_dir_open, sys_dir_child, then tries to
 *                                rename DIR while it is held (must fail)
 *   sys_smoke tree DIR           sys_mkdir_private, files and directories
 *                                in it, sys_remove_tree; is it gone?
 *   sys_smoke private FILE       sys_open_private NEW, READ, OWN
 *   sys_smoke temp               sys_temp_dir, then removes it
 *   sys_smoke stop SECONDS       sys_hold_stop_requests, then reports every
 *                                sys_wait_stop answer for SECONDS
 *
 * Built with storbench.exe (BUILD_DIR/exe/sys_smoke.exe, the Windows
 * branch of CMakeLists.txt); windows_wine runs `held` and `lock'.
 *
 * What wine 8.0 (Debian 12's wine64) answered:
 *   - GetFinalPathNameByHandleW follows a Linux symbolic link inside Z: to
 *     its target ("Z:/tmp/t/lnk" → "Z:/tmp/outside"); "." resolves; case
 *     is normalized ("c:/WINDOWS/system32" → "C:/windows/system32").
 *   - GetFileAttributesW gives a Linux symbolic link (and "Z:", whose
 *     dosdevices entry is a link to /) FILE_ATTRIBUTE_DIRECTORY |
 *     FILE_ATTRIBUTE_REPARSE_POINT (0x410), but no tag:
 *     FileAttributeTagInfo says 0x10, tag 0, and FindFirstFileW's
 *     dwReserved0 is 2 for every entry. sys_path_kind calls it LINK. A
 *     dangling Linux link is ENOENT.
 *   - No junction or Windows symbolic link can be made: `cmd /c mklink /J`
 *     and `/D` exit 0 and create nothing, CreateSymbolicLinkW returns TRUE
 *     and creates nothing, FSCTL_SET_REPARSE_POINT fails with error 50.
 *   - The lock: a second process gets -EBUSY (sharing violation), so does a
 *     second open in the same process. A held directory cannot be renamed
 *     (MoveFileW: error 32); after sys_dir_close it can.
 *   - The private DACL converts and CreateDirectoryW takes it, but wine
 *     stores its own default (SY and the user), not ours.
 *   - `kill -INT` on the .exe's Linux process runs the console control
 *     handler with CTRL_C_EVENT (sys_wait_stop answers 2, the process lives
 *     on), each time, also with stdout redirected to a file. `kill -TERM`
 *     ends the process at once (exit 143), without the handler.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <io.h>
#include <windows.h>

#include "os/os.h"
#include "platform/sys.h"

static const char *kind_name(int k)
{
	static const char *const names[] = { "DIR", "FILE", "LINK", "DEVICE",
					     "OTHER" };
	static char buf[32];

	if (k >= 0 && k <= SYS_KIND_OTHER)
		return names[k];
	snprintf(buf, sizeof(buf), "%d (%s)", k, strerror(-k));
	return buf;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int cmd_lock(const char *dir, int seconds)
{
	char pidfile[PATH_MAX];
	int rc;

	snprintf(pidfile, sizeof(pidfile), "%s/storbench.pid", dir);
	rc = sys_lock_dir(dir, pidfile);
	printf("lock %s: %d%s\n", dir, rc, rc == -EBUSY ? " (EBUSY)" : "");
	fflush(stdout);
	if (rc < 0)
		return 1;
	rc = sys_lock_dir(dir, pidfile);
	printf("lock again in this process: %d%s\n", rc,
	       rc == -EBUSY ? " (EBUSY)" : "");
	fflush(stdout);
	Sleep((DWORD)seconds * 1000);
	return 0;
}

static int cmd_held(const char *dir, const char *name)
{
	char real[PATH_MAX], child[PATH_MAX], moved[PATH_MAX];
	intptr_t h;
	int rc = sys_dir_open(dir, &h, real, sizeof(real));
	wchar_t wfrom[PATH_MAX], wto[PATH_MAX];

	printf("dir_open %s: %d real=%s\n", dir, rc, rc == 0 ? real : "");
	if (rc < 0)
		return 1;
	rc = sys_dir_child(h, name, child, sizeof(child));
	printf("dir_child %s: %d %s\n", name, rc, child);
	if (write_file(child, "x") == 0)
		printf("wrote %s\n", child);
	snprintf(moved, sizeof(moved), "%s.moved", real);
	MultiByteToWideChar(CP_UTF8, 0, real, -1, wfrom, PATH_MAX);
	MultiByteToWideChar(CP_UTF8, 0, moved, -1, wto, PATH_MAX);
	if (MoveFileW(wfrom, wto)) {
		printf("rename while held: SUCCEEDED (the guarantee fails)\n");
		MoveFileW(wto, wfrom);
	} else {
		printf("rename while held: refused, error %lu\n",
		       (unsigned long)GetLastError());
	}
	sys_dir_close(h);
	if (MoveFileW(wfrom, wto)) {
		printf("rename after close: done\n");
		MoveFileW(wto, wfrom);
	} else {
		printf("rename after close: error %lu\n",
		       (unsigned long)GetLastError());
	}
	return 0;
}

static int cmd_tree(const char *dir)
{
	char p[PATH_MAX];
	int rc = sys_mkdir_private(dir);

	printf("mkdir_private %s: %d\n", dir, rc);
	printf("mkdir_private again: %d\n", sys_mkdir_private(dir));
	snprintf(p, sizeof(p), "%s/a", dir);
	sys_mkdir_private(p);
	snprintf(p, sizeof(p), "%s/a/b", dir);
	sys_mkdir_private(p);
	snprintf(p, sizeof(p), "%s/a/b/f.txt", dir);
	write_file(p, "f");
	snprintf(p, sizeof(p), "%s/g.txt", dir);
	write_file(p, "g");
	printf("kind %s/a/b/f.txt: %s\n", dir, kind_name(sys_path_kind(p)));
	sys_remove_tree(dir);
	printf("after remove_tree: %s\n", kind_name(sys_path_kind(dir)));
	return 0;
}

static int cmd_private(const char *path)
{
	char buf[16] = "";
	int fd = sys_open_private(path, SYS_OPEN_NEW), n;
	char who[240] = "";

	printf("open NEW %s: %d\n", path, fd);
	if (fd >= 0) {
		n = write(fd, "secret\n", 7);
		printf("write: %d fsync: %d\n", n, sys_fsync(fd));
		close(fd);
	}
	printf("open NEW again: %d (EEXIST %d)\n",
	       sys_open_private(path, SYS_OPEN_NEW), -EEXIST);
	fd = sys_open_private(path, SYS_OPEN_READ);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	printf("open READ: %d read %d \"%.6s\" shared=%d %s\n", fd, n, buf,
	       fd >= 0 ? sys_fd_shared(fd, who, sizeof(who)) : -1, who);
	if (fd >= 0)
		close(fd);
	fd = sys_open_private(path, SYS_OPEN_OWN);
	printf("open OWN: %d\n", fd);
	if (fd >= 0)
		close(fd);
	return 0;
}

static int cmd_stop(int seconds)
{
	DWORD end = GetTickCount() + (DWORD)seconds * 1000;

	sys_hold_stop_requests();
	printf("waiting for stop requests, pid %lu\n",
	       (unsigned long)GetCurrentProcessId());
	fflush(stdout);
	while ((LONG)(end - GetTickCount()) > 0) {
		int n = sys_wait_stop(500);
		if (n) {
			printf("stop request %d\n", n);
			fflush(stdout);
		}
	}
	printf("still alive at the end\n");
	return 0;
}

int main(int argc, char **argv)
{
	char buf[PATH_MAX];
	int rc;

	sys_args_utf8(&argc, &argv);
	sys_no_core_dumps();
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "args") == 0) {
		for (int i = 0; i < argc; i++)
			printf("argv[%d] = \"%s\" (%zu bytes)\n", i, argv[i],
			       strlen(argv[i]));
		return 0;
	}
	if (strcmp(argv[1], "abs") == 0) {
		for (int i = 2; i < argc; i++)
			printf("abs %s: %d\n", argv[i],
			       sys_path_absolute(argv[i]));
		return 0;
	}
	if (strcmp(argv[1], "real") == 0) {
		for (int i = 2; i < argc; i++) {
			rc = sys_realpath(argv[i], buf);
			printf("real %s: %d %s\n", argv[i], rc,
			       rc == 0 ? buf : strerror(-rc));
		}
		return 0;
	}
	if (strcmp(argv[1], "kind") == 0) {
		for (int i = 2; i < argc; i++)
			printf("kind %s: %s\n", argv[i],
			       kind_name(sys_path_kind(argv[i])));
		return 0;
	}
	if (strcmp(argv[1], "lock") == 0 && argc >= 3)
		return cmd_lock(argv[2],
				argc > 3 ? (int)strtol(argv[3], NULL, 10) : 0);
	if (strcmp(argv[1], "held") == 0 && argc == 4)
		return cmd_held(argv[2], argv[3]);
	if (strcmp(argv[1], "tree") == 0 && argc == 3)
		return cmd_tree(argv[2]);
	if (strcmp(argv[1], "private") == 0 && argc == 3)
		return cmd_private(argv[2]);
	if (strcmp(argv[1], "temp") == 0) {
		rc = sys_temp_dir("storbench-run", buf, sizeof(buf));
		printf("temp_dir: %d %s kind %s\n", rc, buf,
		       kind_name(sys_path_kind(buf)));
		sys_remove_tree(buf);
		printf("removed: %s\n", kind_name(sys_path_kind(buf)));
		return 0;
	}
	if (strcmp(argv[1], "stop") == 0 && argc == 3)
		return cmd_stop((int)strtol(argv[2], NULL, 10));
	return 2;
}
