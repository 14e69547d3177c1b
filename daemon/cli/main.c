/*
 * main — the storbench command line.
 *
 *   storbench serve | run | import | push | report | service [OPTIONS]
 *   storbench COMMAND --help
 *   storbench --version | --help
 *
 * Dispatch only: each command is a file of its own (cmd.h lists them) and
 * one line of the table `commands` below. `smb-worker` / `smb-op` are the
 * children the SMB back-end spawns from this same binary
 * (storage/targets/smb.h), `wire-iperf` the wire baseline's
 * (daemon/wire/wire.h); they never reach a command.
 */
#include <stdio.h>
#include <string.h>

#include "archive/archive.h"
#include "cmd.h"
#include "platform/sys.h"
#include "targets/smb.h"
#include "wire/wire.h"

/* The commands: a new one is its cmd_<name>.c and one line here (its help
 * printed in the usage, a continuation after '\n'). */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv); /* cmd.h */
	const char *help;
} commands[] = {
	{ "serve", cmd_serve, "the daemon: dashboard, REST API and job queue" },
	{ "run", cmd_run,
	  "one benchmark here and now, printed like CrystalDiskMark" },
	{ "import", cmd_import,
	  "results of CrystalDiskMark, fio, DiskSpd or another storbench\n"
	  "into the archive" },
	{ "push", cmd_push,
	  "runs of this archive to another storbench daemon" },
	{ "report", cmd_report,
	  "a comparison or a run as one HTML file to publish" },
	{ "service", cmd_service,
	  "the daemon as a Windows service (install, start, stop, uninstall);\n"
	  "on Linux, the systemd unit storbench.service" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: storbench COMMAND [OPTIONS]\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const char *h = commands[i].help, *nl;
		fprintf(f, "  %-8s ", commands[i].name);
		while ((nl = strchr(h, '\n'))) {
			fprintf(f, "%.*s\n%11s", (int)(nl - h), h, "");
			h = nl + 1;
		}
		fprintf(f, "%s\n", h);
	}
	fprintf(f, "\nstorbench COMMAND --help   what a command takes\n"
		   "storbench --version\n");
}

int main(int argc, char **argv)
{
	sys_args_utf8(&argc, &argv); /* Windows: UTF-8 from the UTF-16 line */
	archive_library_init();
	/* a child the SMB back-end spawns (storage/targets/smb.h) */
	if (argc >= 2 && (strcmp(argv[1], "smb-worker") == 0 ||
			  strcmp(argv[1], "smb-op") == 0))
		return smb_child_main(argc - 1, argv + 1);
	/* the wire baseline's iperf3 client (daemon/wire/wire.h) */
	if (argc >= 2 && strcmp(argv[1], "wire-iperf") == 0)
		return wire_child_main(argc - 1, argv + 1);
	for (size_t i = 0;
	     argc >= 2 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("storbench %s\n", STORBENCH_VERSION);
		return 0;
	}
	if (argc >= 2 &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
