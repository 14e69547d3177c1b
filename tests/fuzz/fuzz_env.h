/*
 * fuzz_env — the sandbox the API fuzz targets run in (fuzz_jobspec.c,
 * fuzz_api.c).
 *
 * fuzz_env_init() makes a fresh directory DIR (mkdtemp under $TMPDIR, else
 * /tmp) holding a/ and b/ (directories to name as targets), f (a regular
 * file), scratch/ (the default target) and credentials.db with one
 * credential, "fuzz"; it removes DIR again at exit. DIR and the shares
 * smb://filer1/bench and smb://[fd00::5]/share are the allowed roots
 * (confine.h), so jobs may name them. It points the SMB helper
 * at a program that does not exist, so an smb:// target is parsed and
 * refused without spawning a process or touching the network. Nothing the
 * targets do writes outside DIR: the job parser only reads the filesystem
 * (realpath, stat, statvfs, access), the archive and the credential store
 * are files in DIR, and no job queue worker runs.
 *
 * Inputs name DIR as "@TMP@" (the seed corpus cannot know it):
 * fuzz_env_subst() replaces every "@TMP@" with it.
 */
#ifndef STORBENCH_FUZZ_ENV_H
#define STORBENCH_FUZZ_ENV_H

#include <stddef.h>
#include <stdint.h>

/* DIR, once fuzz_env_init has run. */
extern char fuzz_dir[];

/* Makes DIR and what is in it; exits the process on failure (a fuzz run
 * without its sandbox must not start). */
void fuzz_env_init(void);

/* data[0..size) with every "@TMP@" replaced by DIR, NUL-terminated, into
 * *out (malloc'd, the caller frees) and its length into *len. Returns 0 or
 * -ENOMEM. */
int fuzz_env_subst(const uint8_t *data, size_t size, char **out, size_t *len);

#endif
