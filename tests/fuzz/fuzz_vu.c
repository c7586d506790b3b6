// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_vu.c - a vhost-user front-end for the fuzz targets (fuzz_vu.h)
 *
 * Theory of operation
 *
 * One relay runs for the whole fuzzing session (fuzz_common.c), listening
 * on a vhost-user socket path. Each input is one connection: the target
 * connects (the relay accepts in the next loop iteration), sends its
 * messages, and ends with fuzz_vu_end(): shutdown() of our sending side,
 * so that the relay reads whatever we sent and then the end of the stream
 * (never waiting for a message that won't come), then loop iterations
 * until the relay has closed its side. Replies are read and dropped as
 * they come, so that the relay never waits for room in our socket.
 *
 * Leak check: fuzz_vu_connect() counts the process's eventfds, memfds and
 * pipes (what a front-end passes) and fuzz_vu_end(), once the relay hung
 * up and we closed everything of ours, counts them again: a difference
 * means the relay kept something of a front-end that is gone, and
 * aborts, as a sanitizer report would.
 *
 * Guest memory: one sparse memfd of FUZZ_VU_MEM_SIZE, mapped here too (the
 * virtqueue target writes rings and buffers through it). Pages the relay
 * or the target touch would pile up over millions of inputs: every
 * FUZZ_VU_PUNCH_EVERY inputs, a hole is punched over the whole file.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "fuzz.h"
#include "fuzz_vu.h"

#define FUZZ_VU_PUNCH_EVERY	1024	/* inputs between memory resets */
#define FUZZ_VU_END_ROUNDS	256	/* loop iterations for the hang-up */

static int fuzz_vu_fd_mem = -1;
static uint8_t *fuzz_vu_map;
static unsigned int fuzz_vu_fds0;
static unsigned long fuzz_vu_inputs;

/**
 * fuzz_vu_abort() - the harness or the relay misbehaved: say so, abort
 * @what:	what happened
 */
static void __attribute__((noreturn)) fuzz_vu_abort(const char *what)
{
	fprintf(stderr, "fuzz_vu: %s (%s)\n", what, strerror(errno));
	abort();
}

/**
 * fuzz_vu_count_fds() - count the descriptors a front-end can give us
 *
 * Eventfds, memfds (the guest memory) and pipes: sockets are not counted,
 * as flows the guest opened through the relay may outlive its front-end.
 *
 * Return: their number
 */
static unsigned int fuzz_vu_count_fds(void)
{
	static const char *const kinds[] = {
		"anon_inode:[eventfd]", "/memfd:", "pipe:",
	};
	unsigned int n = 0, k;
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		fuzz_vu_abort("can't list /proc/self/fd");
	while ((e = readdir(d))) {
		char link[256];
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		len = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			n += !strncmp(link, kinds[k], strlen(kinds[k]));
	}
	closedir(d);
	return n;
}

/**
 * fuzz_vu_memfd() - the guest memory's descriptor (ours: dup() to pass)
 *
 * Return: memfd of FUZZ_VU_MEM_SIZE bytes
 */
int fuzz_vu_memfd(void)
{
	if (fuzz_vu_fd_mem >= 0)
		return fuzz_vu_fd_mem;

	fuzz_vu_fd_mem = memfd_create("fuzz_vu_guest", MFD_CLOEXEC);
	if (fuzz_vu_fd_mem < 0 ||
	    ftruncate(fuzz_vu_fd_mem, (off_t)FUZZ_VU_MEM_SIZE))
		fuzz_vu_abort("guest memory (memfd)");
	fuzz_vu_map = mmap(NULL, FUZZ_VU_MEM_SIZE, PROT_READ | PROT_WRITE,
			   MAP_SHARED, fuzz_vu_fd_mem, 0);
	if (fuzz_vu_map == MAP_FAILED)
		fuzz_vu_abort("map the guest memory");
	return fuzz_vu_fd_mem;
}

/**
 * fuzz_vu_mem() - our view of the guest memory
 *
 * Return: FUZZ_VU_MEM_SIZE bytes, shared with what the relay maps
 */
uint8_t *fuzz_vu_mem(void)
{
	fuzz_vu_memfd();
	return fuzz_vu_map;
}

/**
 * fuzz_vu_eventfd() - a new non-blocking eventfd, or abort
 *
 * Return: descriptor
 */
int fuzz_vu_eventfd(void)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	if (fd < 0)
		fuzz_vu_abort("eventfd");
	return fd;
}

/**
 * fuzz_vu_connect() - connect as a new front-end, let the relay accept
 *
 * Return: connected socket (blocking, large send buffer)
 */
int fuzz_vu_connect(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	const char *path = fuzz_init_vhost_user();
	int fd, sndbuf = 1 << 20;

	fuzz_vu_memfd();
	if (++fuzz_vu_inputs % FUZZ_VU_PUNCH_EVERY == 0 &&
	    fallocate(fuzz_vu_fd_mem, FALLOC_FL_PUNCH_HOLE |
		      FALLOC_FL_KEEP_SIZE, 0, (off_t)FUZZ_VU_MEM_SIZE))
		fuzz_vu_abort("punch a hole in the guest memory");

	fuzz_vu_fds0 = fuzz_vu_count_fds();
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		fuzz_vu_abort("connect to the relay's vhost-user socket");
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	fuzz_pump(1);
	return fd;
}

/**
 * fuzz_vu_drain() - read and drop what the relay sent us
 * @fd:		front-end socket
 */
void fuzz_vu_drain(int fd)
{
	static uint8_t buf[65536];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/**
 * fuzz_vu_end() - hang up, run the relay until it closed, check for leaks
 * @fd:		front-end socket, closed here
 */
void fuzz_vu_end(int fd)
{
	static uint8_t buf[65536];
	unsigned int i, fds;

	shutdown(fd, SHUT_WR);
	for (i = 0; i < FUZZ_VU_END_ROUNDS; i++) {
		ssize_t n;

		fuzz_pump(1);
		do
			n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		while (n > 0);
		if (!n || (n < 0 && errno != EAGAIN))
			break;
	}
	if (i == FUZZ_VU_END_ROUNDS)
		fuzz_vu_abort("the relay did not close a connection whose "
			      "front-end hung up");
	close(fd);
	fuzz_pump(1);

	fds = fuzz_vu_count_fds();
	if (fds != fuzz_vu_fds0) {
		fprintf(stderr, "fuzz_vu: %u descriptors open after the "
			"front-end left, %u before it came\n", fds,
			fuzz_vu_fds0);
		abort();
	}
}
