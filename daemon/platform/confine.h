/*
 * confine — where a job may write, decided in one place.
 *
 * The daemon writes only under its allowed roots: DATA/scratch always, plus
 * each `--allow PATH` (a local directory), `--allow
 * smb://server/share[/dir]` (the smb back-end) or, on Windows, `--allow
 * \\server\share[\dir]` (a share through Windows' own SMB client, allowed
 * even when it cannot be reached at start: a job's credential may open
 * it). A raw block device is a target only when allowed one by one
 * (`--allow-device /dev/X`) and not mounted or held. Every job leaves a
 * reserve of free space on its filesystem (`--reserve`, default 10 % of its
 * size).
 *
 * Design: the policy is process-wide. main() sets it before any thread
 * starts; afterwards it is only read, so every thread may call the checks.
 * Local roots are stored resolved (realpath) and re-resolved at every check:
 * a root swapped for a symlink after start refuses every job under it.
 * A path is checked after realpath(), so "..", and symlinks leading out of a
 * root, end outside it and are refused; a path naming ".." is refused
 * before that, by its text. A path on a share is first held against the
 * share roots by its text alone (confine_share), so that nothing is opened
 * on a server the daemon was not allowed.
 *
 * Every check returns 0, or a negative errno with a sentence in why (for the
 * API's problem detail and the job's error): -EACCES outside the roots,
 * -ENOENT / -ENOTDIR for what is not there, -EBUSY for a device in use.
 */
#ifndef STORBENCH_CONFINE_H
#define STORBENCH_CONFINE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define CONFINE_MAX_ROOTS 32
#define CONFINE_RESERVE_PCT 10.0 /* default reserve, % of the filesystem */

/* Adds an allowed root: an existing local directory (not a symlink, not "/"),
 * an smb://server[:port]/share[/dir] URL (in a build with the smb
 * back-end), or a share through the system's own client (sys_path_share:
 * \\server\share[\dir]). 0 — with why "" or, for a share that cannot be
 * reached now and is allowed by its name, a warning to log — or a negative
 * errno with why. */
int confine_allow(const char *path, char *why, size_t len);

/* Adds a raw block device (a path to one, symlinks resolved) jobs may use. */
int confine_allow_device(const char *path, char *why, size_t len);

/* Sets the reserve: "10%" (of the filesystem's size, 0–90 %) or a size
 * ("20GiB", units.h). */
int confine_set_reserve(const char *text, char *why, size_t len);

/* Forgets every root, device and the reserve (tests). */
void confine_reset(void);
/* The reserve back to its default (confine_reset calls it). */
void confine_reserve_reset(void);

/* The allowed roots of a kind as "a, b, c" (scratch first when given and
 * kind is CONFINE_ALL or CONFINE_LOCAL); CONFINE_SHARE: the roots on shares
 * through the system's own client. */
enum { CONFINE_ALL, CONFINE_LOCAL, CONFINE_SMB, CONFINE_SHARE };
void confine_roots_text(const char *scratch, int kind, char *buf, size_t len);

/*
 * Is the local directory path (or a directory on a share through the
 * system's own client) inside scratch or an allowed root? On 0, real
 * holds its resolved path. The sentences name path (and what it resolves
 * to when that differs). A share that cannot be opened is -ENOENT,
 * -EPERM (access denied: not the roots' refusal) or another negative errno
 * with the system's words.
 */
int confine_dir(const char *path, const char *scratch, char real[PATH_MAX],
		char *why, size_t len);

/*
 * Is path, on a share through the system's own client (sys_path_share),
 * under an allowed share by its text alone — nothing is opened? 0;
 * -EACCES outside them (why names the --allow that would allow it);
 * -EINVAL when path is not a share's path (no share named, an empty, "."
 * or ".." name). confine_dir asks it first for such a path.
 */
int confine_share(const char *path, char *why, size_t len);

/* Is the smb:// URL under an allowed smb:// root? (server, port and share
 * compared without case, then the directory's names one by one.) */
int confine_smb(const char *url, char *why, size_t len);

/*
 * Is path a block device allowed with --allow-device, and free (no mounted
 * filesystem, no holder, on it or on its partitions)? On 0, real is its
 * resolved path and *bytes its size. -ENOTBLK when path is not a block
 * device (no sentence then).
 */
int confine_device(const char *path, char real[PATH_MAX], uint64_t *bytes,
		   char *why, size_t len);

/*
 * Do need more bytes fit where free_bytes of a filesystem (or share) of
 * total_bytes are free, leaving the reserve free? 1 yes; 0 no, with a
 * sentence in why ("PATH has … GiB free and the job needs … GiB more,
 * keeping the reserve (10 %) free (… GiB; the daemon's --reserve)").
 */
int confine_room(const char *path, int64_t free_bytes, int64_t total_bytes,
		 uint64_t need, char *why, size_t len);

/* The bytes to keep free on a filesystem of total_bytes. */
uint64_t confine_reserve_bytes(uint64_t total_bytes);

/* The reserve as the user set it ("10 %", "20 GiB") for sentences. */
void confine_reserve_text(char *buf, size_t len);

#endif
