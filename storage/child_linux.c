/*
 * child_linux — see child.h: posix_spawn of this program with a
 * socketpair for its standard input and output.
 */
#include "child.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/socket.h>
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
