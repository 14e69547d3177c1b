/*
 * child_linux — see child.h: posix_spawn of this program with a
 * socketpair for its standard input and output.
 */
#include "child.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The program run as a child: this one, unless a test says otherwise. */
static char program[4096] = "/proc/self/exe";

void child_set_program(const char *path)
{
	snprintf(program, sizeof(program), "%s", path);
}

int child_spawn(char *const argv[], char *const env[], pid_t *pid, int *sock)
{
	posix_spawn_file_actions_t fa;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	rc = posix_spawn(pid, program, &fa, NULL, argv, env ? env : environ);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	if (rc != 0) {
		close(sv[0]);
		return -rc;
	}
	*sock = sv[0];
	return 0;
}

int child_reap(pid_t pid, int sock, int kill_it)
{
	int status = 0;

	if (sock >= 0)
		close(sock);
	if (kill_it)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

int child_write2(int fd, const void *a, size_t alen, const void *b, size_t blen)
{
	struct iovec v[2] = { { (void *)a, alen }, { (void *)b, blen } };
	struct iovec *p = v;
	int n = blen ? 2 : 1;

	while (n) {
		ssize_t k = writev(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EPIPE;
		/* a short write: step past what went */
		while (n && (size_t)k >= p->iov_len) {
			k -= (ssize_t)p->iov_len;
			p++;
			n--;
		}
		if (n) {
			p->iov_base = (char *)p->iov_base + k;
			p->iov_len -= (size_t)k;
		}
	}
	return 0;
}

int child_full_io(int fd, void *buf, size_t len, int out)
{
	char *p = buf;

	while (len) {
		ssize_t n = out ? write(fd, p, len) : read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
