/*
 * cmd_service_linux — `storbench service` on Linux: there the daemon runs
 * as the systemd unit daemon/cli/storbench.service (README, "As a systemd
 * service"), which `cmake --install` puts where systemd looks; the command
 * says so. The Windows service is cmd_service_win.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const char linux_service[] =
	"storbench service: the Windows service (storbench.exe); on Linux the "
	"daemon runs\n"
	"as the systemd unit storbench.service (daemon/cli/storbench.service, "
	"installed by\n"
	"cmake --install; README, \"As a systemd service\"):\n"
	"  systemctl enable --now storbench\n";

int cmd_service(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		fputs(linux_service, stdout);
		return 0;
	}
	fputs(linux_service, stderr);
	return 2;
}
