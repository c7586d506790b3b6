// SPDX-License-Identifier: GPL-2.0-or-later
/* sockbuf.c - socket buffer sizes asked for by options, or the relay's own
 *
 * Theory of operation: --tcp-rmem, --tcp-wmem, --tap-rmem and --tap-wmem
 * set SO_RCVBUF/SO_SNDBUF on the sockets they concern. The kernel caps
 * such requests at net.core.rmem_max/wmem_max without an error, so after
 * setting a size we read it back (the kernel reports double the request,
 * its bookkeeping overhead included) and, the first time it falls short,
 * tell the user the effective size and which sysctl limits it. Sizes the
 * relay picks itself, where no option was given, are set without that
 * report (sockbuf_set_quiet()).
 */

#include <string.h>
#include <sys/socket.h>

#include "sockbuf.h"
#include "log.h"
#include "syscalls.h"

/* System calls after start-up: buffer sizes of new sockets */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SETSOCKOPT("SO_RCVBUF, SO_SNDBUF", SOL_SOCKET),
	 SYSCALLS_CALL("getsockopt", "the size the kernel granted"));

/**
 * sockbuf_set() - set a socket buffer size, report kernel clamping once
 * @fd:		socket
 * @opt:	SO_RCVBUF or SO_SNDBUF
 * @want:	size asked for, bytes; 0 or less: leave the kernel's default
 * @option:	the option that asked for it, for messages (e.g. --tcp-rmem)
 * @reported:	caller's flag: set once the clamping was reported
 */
void sockbuf_set(int fd, int opt, int want, const char *option,
		 bool *reported)
{
	socklen_t sl = sizeof(int);
	int got;

	if (want <= 0)
		return;

	if (setsockopt(fd, SOL_SOCKET, opt, &want, sizeof(want))) {
		warn_perror("%s %i: can't set the socket buffer", option,
			    want);
		return;
	}

	if (*reported || getsockopt(fd, SOL_SOCKET, opt, &got, &sl))
		return;
	got /= 2;

	if (got < want) {
		*reported = true;
		info("%s %i: the kernel limits socket buffers to %i bytes "
		     "(raise net.core.%s to allow more)", option, want, got,
		     opt == SO_RCVBUF ? "rmem_max" : "wmem_max");
	}
}

/**
 * sockbuf_set_quiet() - set a socket buffer size of the relay's own choice
 * @fd:		socket
 * @opt:	SO_RCVBUF or SO_SNDBUF
 * @want:	size, bytes: the kernel caps it at net.core.rmem_max/wmem_max,
 *		which is not worth a message, as no user asked for it
 */
void sockbuf_set_quiet(int fd, int opt, int want)
{
	if (setsockopt(fd, SOL_SOCKET, opt, &want, sizeof(want)))
		debug_perror("can't set socket buffer option %i to %i", opt,
			     want);
}
