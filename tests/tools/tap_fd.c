// SPDX-License-Identifier: GPL-2.0-or-later
/* tap_fd.c - open a tap device in a network namespace, run a command with it
 *
 * Usage: tap_fd [-v] NETNS_PATH IFNAME FD -- COMMAND [ARG]...
 *
 * Theory of operation: what a caller of pasta --fd does. We enter the
 * network namespace at NETNS_PATH, create tap device IFNAME there by
 * opening /dev/net/tun (IFF_TAP | IFF_NO_PI, and IFF_VNET_HDR with -v),
 * return to our own namespace, put the descriptor at number FD (not
 * close-on-exec), and run COMMAND, which inherits it. The device lives as
 * long as a descriptor of it is open.
 *
 * Exit status: COMMAND's (it replaces us), or 1 if any step fails.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>

/**
 * tap_fd_die() - report a failed step and exit
 * @what:	the step
 */
static void tap_fd_die(const char *what)
{
	fprintf(stderr, "tap_fd: %s: %s\n", what, strerror(errno));
	exit(1);
}

/**
 * main() - open the device, run the command
 * @argc:	argument count
 * @argv:	[-v] NETNS_PATH IFNAME FD -- COMMAND [ARG]...
 *
 * Return: 1 on failure (on success, COMMAND replaces us)
 */
int main(int argc, char **argv)
{
	int own, ns, fd, want, i = 1;
	short flags = IFF_TAP | IFF_NO_PI;
	struct ifreq ifr;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		flags |= IFF_VNET_HDR;
		i++;
	}
	if (argc - i < 5 || strcmp(argv[i + 3], "--") != 0) {
		fprintf(stderr, "Usage: %s [-v] NETNS_PATH IFNAME FD -- COMMAND [ARG]...\n",
			argv[0]);
		return 1;
	}
	want = atoi(argv[i + 2]);

	own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ns = open(argv[i], O_RDONLY | O_CLOEXEC);
	if (own < 0 || ns < 0)
		tap_fd_die("open namespace");
	if (setns(ns, CLONE_NEWNET))
		tap_fd_die("enter the namespace");

	fd = open("/dev/net/tun", O_RDWR);
	if (fd < 0)
		tap_fd_die("open /dev/net/tun");
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = flags;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[i + 1]);
	if (ioctl(fd, TUNSETIFF, &ifr))
		tap_fd_die("TUNSETIFF");

	if (setns(own, CLONE_NEWNET))
		tap_fd_die("return to our namespace");
	if (fd != want && (dup2(fd, want) < 0 || close(fd)))
		tap_fd_die("dup2");

	execvp(argv[i + 4], argv + i + 4);
	tap_fd_die("exec");
	return 1;
}
