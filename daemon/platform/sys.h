/*
 * sys — what the daemon needs from the operating system beyond C11, POSIX
 * threads and the engine's os.h: resolving paths, holding a directory so
 * that a job's files land in it whatever is renamed meanwhile, raw block
 * devices, the data directory's lock, stop signals, core dumps. One
 * implementation per operating system (sys_linux.c; a port supplies
 * sys_<os>.c, see docs/design.md "The OS seam").
 *
 * Handles are intptr_t: a file descriptor on Linux, a HANDLE on Windows,
 * -1 for none. Paths are UTF-8 with '/' between components on both
 * ("D:/bench" on Windows: sys_realpath gives them so).
 */
#ifndef STORBENCH_SYS_H
#define STORBENCH_SYS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* Is path absolute on this system: "/…" on Linux; "D:/…" or "D:\\…" on
 * Windows (a drive letter and a separator), or a share's (sys_path_share). */
int sys_path_absolute(const char *path);

/* Is path on a share the system reaches through its own SMB client:
 * \\server\share[\dir] or //server/share[/dir] on Windows (unc.h; also when
 * malformed, for the sentence saying why; not the device forms \\.\ and
 * \\?\); never on Linux, where "//x" is "/x". 1 or 0. */
int sys_path_share(const char *path);

/*
 * Connects this process to share ("//server/share") as user — of domain
 * when that is not "" — with password, for the caller until
 * sys_share_release(*h) (Windows: WNetAddConnection2W without a local
 * name). The connection is counted: holders of one share share it, and it
 * is cancelled (WNetCancelConnection2W) when the last lets go. password is
 * only passed to the call; the copies made for it are wiped. 0; -EACCES
 * when the logon is refused (user, password or domain wrong, the account
 * restricted, locked or expired, no access to the share, another user
 * connected to that server already); another negative errno when the share
 * cannot be reached. On failure why holds the system's words. Linux:
 * -EOPNOTSUPP (shares are the smb back-end's).
 */
int sys_share_connect(const char *share, const char *user, const char *domain,
		      const char *password, intptr_t *h, char *why, size_t len);
/* Lets go of what sys_share_connect gave (-1: nothing). */
void sys_share_release(intptr_t h);

/* Does c separate a path's components: '/' on Linux; '/' or '\\' on
 * Windows. */
int sys_path_sep(int c);

/* What is at path, not following it when it is a link (Linux: lstat;
 * Windows: a reparse point that names another place — a symbolic link, a
 * junction, a volume mount point — is SYS_KIND_LINK; \\.\X:,
 * \\.\PhysicalDriveN and \\?\Volume{…} are SYS_KIND_DEVICE, told by
 * their text without opening them). A SYS_KIND_* or a negative errno. */
enum {
	SYS_KIND_DIR,
	SYS_KIND_FILE,
	SYS_KIND_LINK,
	SYS_KIND_DEVICE, /* a raw block device (Linux); a volume or physical
			    drive (\\.\X:, \\.\PhysicalDrive0) on Windows */
	SYS_KIND_OTHER,
};
int sys_path_kind(const char *path);

/* The program's arguments as UTF-8 (Windows reads the command line again
 * as UTF-16 and converts it; the console's output is set to UTF-8). Linux
 * leaves them as they are. */
void sys_args_utf8(int *argc, char ***argv);

/* path with every symlink, "." and ".." resolved into real (PATH_MAX
 * bytes). 0 or a negative errno. */
int sys_realpath(const char *path, char *real);

/*
 * A handle on directory dir (Linux: O_PATH) and where it really is now
 * (the kernel's name for the open directory) into real. 0, -EXDEV when
 * the system cannot tell where it is, or another negative errno.
 */
int sys_dir_open(const char *dir, intptr_t *h, char *real, size_t len);
/* The path that names file name inside the held directory h, however the
 * directory is reached meanwhile (Linux: /proc/self/fd/N/NAME). 0 or
 * -ENAMETOOLONG. */
int sys_dir_child(intptr_t h, const char *name, char *buf, size_t len);
void sys_dir_close(intptr_t h);

/* Is path a raw block device? Then real is its resolved path and *id its
 * identity (Linux: dev_t) for comparing with the allowed ones; else
 * -ENOTBLK. */
int sys_device_id(const char *path, char *real, uint64_t *id);
/* Is device id at real, with its partitions, free: nothing mounted, no
 * holder (LVM, md), not open exclusively? 0, or -EBUSY with a sentence in
 * why naming name, or another negative errno. */
int sys_device_free(const char *name, const char *real, uint64_t id, char *why,
		    size_t len);
/* The device's size in bytes. 0 or a negative errno. */
int sys_device_size(const char *real, uint64_t *bytes);
/* Holds the device exclusively (Linux: O_EXCL) until released, so that
 * nothing mounts or claims it while a job writes it. */
int sys_device_hold(const char *real, intptr_t *h);
void sys_device_release(intptr_t h);
/*
 * The SNIA PTS purge where the system allows it: tells the device that
 * bytes [offset, offset + len) of raw block device real (opened for
 * writing beside the job's hold) hold nothing (Linux: BLKDISCARD,
 * TRIM/UNMAP), so an SSD's next writes start as on a fresh drive (FOB). 0;
 * -EOPNOTSUPP when the device or the system cannot (Windows: raw devices
 * are no targets there), or another negative errno, with a sentence in why.
 */
int sys_device_discard(const char *real, uint64_t offset, uint64_t len,
		       char *why, size_t why_len);

/* Locks data directory dir for this process (one daemon per directory)
 * and writes our pid into pidfile. 0, -EBUSY when another process holds
 * it, or another negative errno. The lock lasts until the process ends. */
int sys_lock_dir(const char *dir, const char *pidfile);

/* Lets go of the lock sys_lock_dir took (before removing a temporary data
 * directory: Windows removes no directory with an open file in it). */
void sys_unlock_dir(void);

/* Creates directory path readable by its owner only (0700) unless it
 * exists. 0 or a negative errno. */
int sys_mkdir_private(const char *path);

/* Creates a new directory, readable by its owner only, in the system's
 * place for temporary files (Linux: $TMPDIR or /tmp, mkdtemp; Windows:
 * GetTempPathW) named PREFIX-XXXXXX, into path. 0 or a negative errno
 * (path then holds the name tried, for the sentence). */
int sys_temp_dir(const char *prefix, char *path, size_t len);

/*
 * Opens a file that holds a secret (the API token, the credential store)
 * or the data directory's pid, not inherited by programs the daemon
 * starts. how: SYS_OPEN_READ an existing file for reading, not following a
 * symbolic link (-ELOOP), not waiting on a FIFO; SYS_OPEN_NEW a new file
 * (-EEXIST when one is there, not following a link) for writing, its
 * owner's alone (0600; Windows: a protected access list granting
 * Administrators and the daemon's account only); SYS_OPEN_OWN for reading
 * and writing, created when missing, and made private the same way when it
 * exists. A file descriptor (read, write, fstat, close) or a negative
 * errno.
 */
enum { SYS_OPEN_READ, SYS_OPEN_NEW, SYS_OPEN_OWN };
int sys_open_private(const char *path, int how);
/* Writes fd's data through to the disk (fsync; Windows FlushFileBuffers).
 * 0 or a negative errno. */
int sys_fsync(int fd);
/*
 * Who, besides the daemon's own account, may read or write the open file
 * fd: 1 with a sentence naming them in who ("its mode is 644" on Linux;
 * "BUILTIN\Users may read it" from the file's access list on Windows, which
 * counts Administrators, SYSTEM and the account the daemon runs as as its
 * own), or 0 when nobody else may.
 */
int sys_fd_shared(int fd, char *who, size_t len);

/* Can every local user create files in directory path (Linux: o+w, mode
 * 1777 and the like; Windows: its access list lets Everyone, Users or
 * Authenticated Users add files)? 1 with the sentence in who, or 0. */
int sys_dir_open_to_all(const char *path, char *who, size_t len);

/* How this system keeps a secret file private, for sentences: "mode 0600"
 * on Linux; "Administrators and DOMAIN\account only" on Windows. */
const char *sys_private_words(void);

/* How to make file path private by hand, for sentences ("chmod 600 PATH";
 * Windows: the icacls command). */
void sys_private_fix(const char *path, char *buf, size_t len);

/* Makes the files named own[] (n of them) in data directory dir private
 * (0600) and scratch 0700 where others could read them, saying so in the
 * log, and warns when dir itself is open to others. Windows, where a new
 * file takes its directory's access list, makes dir private as well
 * (Administrators and the daemon's account, inherited by what is created
 * in it), saying so. */
void sys_tighten(const char *dir, const char *scratch, const char *const *own,
		 size_t n);

/* Removes the tree at path (files and directories, not following links). */
void sys_remove_tree(const char *path);

/* The process keeps no core dump (its memory holds the API token and SMB
 * passwords). */
void sys_no_core_dumps(void);

/* Holds back the requests to stop (Linux: SIGINT, SIGTERM, SIGHUP) and a
 * closed pipe (SIGPIPE) in the calling thread and every thread it starts
 * afterwards, so that only sys_wait_stop takes them. Call before starting
 * threads. */
void sys_hold_stop_requests(void);
/* Says that the daemon serves (its listener is up, its queue runs) and
 * waits for a stop request from now on: a Windows service reports
 * SERVICE_RUNNING to the service manager (sys_proc_win.c); nothing
 * otherwise, and nothing on Linux. */
void sys_serving(void);
/* Waits up to timeout_ms (< 0: for ever) for a request to stop: its
 * number (> 0), or 0 when the time ran out. A closed pipe is dropped. */
int sys_wait_stop(int timeout_ms);

#endif
