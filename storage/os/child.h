/*
 * child — a helper process: this same program spawned fresh
 * (posix_spawn), with its own arguments and environment, its fd 0 and 1
 * one end of a socketpair and the caller holding the other. What a
 * threaded daemon must not run in itself runs there: libsmbclient (the
 * SMB back-end's workers and one-shot operations, smb.h), iperf3's
 * library (the wire baseline, daemon/wire/wire.h) — libraries with
 * process-wide state, or that may exit() or print.
 *
 * Linux only (child_linux.c); the Windows build spawns no helper.
 */
#ifndef STORBENCH_CHILD_H
#define STORBENCH_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/* The program spawned: /proc/self/exe unless a test names another (which
 * must dispatch the helpers' commands as daemon/cli/main.c does). */
void child_set_program(const char *path);

/*
 * Spawns the program with argv (argv[0] the name it is given) and env (a
 * NULL-terminated list, the caller's to free; NULL: ours), its standard
 * input and output one socket of an AF_UNIX stream pair. On 0, *pid is
 * the child (the caller reaps it with waitpid) and *sock our end (close on
 * exec; the caller closes it: the child reads end of file). A negative
 * errno when no socket or no process could be made.
 */
int child_spawn(char *const argv[], char *const env[], pid_t *pid, int *sock);

/* Closes sock (unless < 0), kills the child first when kill_it, and reaps
 * it; its wait status. */
int child_reap(pid_t pid, int sock, int kill_it);

/* All len bytes of buf read from (out 0) or written to (out 1) fd,
 * through EINTR and short transfers. 0, -EPIPE at end of file, or
 * -errno. */
int child_full_io(int fd, void *buf, size_t len, int out);

/* a then b (blen may be 0) written to fd in one writev where it can;
 * 0 or a negative errno as child_full_io. */
int child_write2(int fd, const void *a, size_t alen, const void *b,
		 size_t blen);

#endif
