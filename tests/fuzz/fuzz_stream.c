// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_stream.c - libFuzzer target: the stream socket as a byte stream
 *
 * Theory of operation
 *
 * The relay listens on a -s socket path with the stream backend
 * (fuzz_init_stream()), as for QEMU's -netdev stream. Each input is one
 * guest connection, written in chunks whose sizes the input chooses; the
 * relay runs one loop iteration after each chunk, so that its reads end
 * where the chunks end: length prefixes and frames are cut anywhere. Input
 * format, records until the input ends:
 *
 *   0x00-0x7f		a chunk of (op + 1) bytes, the bytes that follow
 *   0x80-0xbf B	a chunk of ((op & 0x3f) << 8 | B) + 1 bytes that follow
 *   0xc0-0xfe B C	a chunk of ((op - 0xc0) << 16 | B << 8 | C) + 1
 *			bytes 0xff (to complete frames of the long lengths
 *			the relay waits for and skips, up to 16 largest
 *			frames; past a frame, they read as a length that
 *			closes the connection, not as a million short
 *			frames that would slow the target down)
 *   0xff		the rest of the input, one chunk
 *
 * A chunk cut by the end of the input is sent as far as it goes; the
 * stream is limited to FUZZ_STREAM_MAX bytes. Then our end is shut down
 * and the relay must close its end (bounded loop iterations).
 *
 * What must hold, besides no crash, exit or sanitizer report:
 * - the relay hands over (tap_frame_in(), linked as __wrap_tap_frame_in())
 *   exactly the frames a reference reading of the whole stream finds, in
 *   order, with their lengths and bytes: no frame read past its end, none
 *   missed, none made up of a cut one;
 * - its counters agree: frames handed over, dropped as short (0 to 13
 *   bytes) or long (up to 16 largest frames: read and skipped);
 * - it hangs up before we do if and only if a length beyond what it skips
 *   (0xffffffff, say) came at a frame boundary;
 * - it never stops reading (a chunk that can't be sent in
 *   FUZZ_STREAM_ROUNDS iterations aborts);
 * - afterwards, a new connection is served: an ARP request for the
 *   gateway gets its reply.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "fuzz.h"
#include "fuzz_build.h"
#include "../../tap/tap_backend.h"
#include "../../tap/tap.h"

/* The stream backend's limits (stream/stream.c), as doc/design.md has them */
#define FUZZ_STREAM_FRAME_MIN	14
#define FUZZ_STREAM_FRAME_MAX	(14 + 4 + 65535)
#define FUZZ_STREAM_SKIP_MAX	(16 * FUZZ_STREAM_FRAME_MAX)

#define FUZZ_STREAM_MAX		(FUZZ_STREAM_SKIP_MAX + 65536)
#define FUZZ_STREAM_CHUNKS	65536	/* chunks kept per input */
#define FUZZ_STREAM_FRAMES	(FUZZ_STREAM_MAX / 4)
#define FUZZ_STREAM_ROUNDS	256	/* iterations for a chunk, a hang-up */
#define FUZZ_STREAM_SNDBUF	(1 << 20)

void __real_tap_frame_in(const struct ctx *c, const uint8_t *frame,
			 size_t len, uint64_t now_ms);
void __wrap_tap_frame_in(const struct ctx *c, const uint8_t *frame,
			 size_t len, uint64_t now_ms);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * struct fuzz_stream_frame - a frame the relay must hand over
 * @off:	offset of its first byte in the stream
 * @len:	its length
 */
struct fuzz_stream_frame {
	uint32_t off;
	uint32_t len;
};

/* The stream of one input, and where its chunks end */
static uint8_t fuzz_stream[FUZZ_STREAM_MAX];
static size_t fuzz_stream_len;
static size_t fuzz_stream_ends[FUZZ_STREAM_CHUNKS];
static size_t fuzz_stream_nchunks;

/* What a reading of the whole stream finds */
static struct fuzz_stream_frame fuzz_stream_exp[FUZZ_STREAM_FRAMES];
static size_t fuzz_stream_nexp;	/* frames to hand over */
static size_t fuzz_stream_seen;	/* handed over so far */
static uint64_t fuzz_stream_short, fuzz_stream_long;
static bool fuzz_stream_lost;		/* a length beyond the skip limit */
static bool fuzz_stream_checking;	/* compare what is handed over */

static bool fuzz_stream_arp_seen;

/**
 * fuzz_stream_fail() - something that must hold did not: say it, abort
 * @what:	what
 */
static void __attribute__((noreturn)) fuzz_stream_fail(const char *what)
{
	fprintf(stderr, "fuzz_stream: %s (stream of %zu bytes in %zu chunks, "
		"%zu of %zu frames handed over)\n", what, fuzz_stream_len,
		fuzz_stream_nchunks, fuzz_stream_seen, fuzz_stream_nexp);
	abort();
}

/**
 * __wrap_tap_frame_in() - check a frame the relay read, then pass it on
 * @c:		execution context
 * @frame:	frame
 * @len:	its length
 * @now_ms:	current time
 */
void __wrap_tap_frame_in(const struct ctx *c, const uint8_t *frame,
			 size_t len, uint64_t now_ms)
{
	if (fuzz_stream_checking) {
		const struct fuzz_stream_frame *e;

		if (fuzz_stream_seen == fuzz_stream_nexp)
			fuzz_stream_fail("a frame handed over beyond those "
					 "of the stream");
		e = &fuzz_stream_exp[fuzz_stream_seen++];
		if (len != e->len ||
		    memcmp(frame, fuzz_stream + e->off, len) != 0)
			fuzz_stream_fail("a frame handed over differs from "
					 "the stream's");
	}
	__real_tap_frame_in(c, frame, len, now_ms);
}

/**
 * fuzz_stream_add() - append a chunk to the stream
 * @src:	its bytes, NULL for filler bytes (0xff)
 * @len:	its length
 */
static void fuzz_stream_add(const uint8_t *src, size_t len)
{
	if (len > FUZZ_STREAM_MAX - fuzz_stream_len)
		len = FUZZ_STREAM_MAX - fuzz_stream_len;
	if (!len || fuzz_stream_nchunks == FUZZ_STREAM_CHUNKS)
		return;
	if (src)
		memcpy(fuzz_stream + fuzz_stream_len, src, len);
	else
		memset(fuzz_stream + fuzz_stream_len, 0xff, len);
	fuzz_stream_len += len;
	fuzz_stream_ends[fuzz_stream_nchunks++] = fuzz_stream_len;
}

/**
 * fuzz_stream_parse() - turn the input's records into the stream's chunks
 * @d:		input
 * @size:	its length
 */
static void fuzz_stream_parse(const uint8_t *d, size_t size)
{
	size_t i = 0, n;

	fuzz_stream_len = fuzz_stream_nchunks = 0;
	while (i < size) {
		uint8_t op = d[i++];

		if (op < 0x80) {
			n = (size_t)op + 1;
		} else if (op < 0xc0) {
			if (i >= size)
				break;
			n = ((size_t)(op & 0x3f) << 8 | d[i++]) + 1;
		} else if (op < 0xff) {
			if (size - i < 2)
				break;
			n = ((size_t)(op - 0xc0) << 16 |
			     (size_t)d[i] << 8 | d[i + 1]) + 1;
			i += 2;
			fuzz_stream_add(NULL, n);
			continue;
		} else {
			n = size - i;
		}
		if (n > size - i)
			n = size - i;
		fuzz_stream_add(d + i, n);
		i += n;
	}
}

/**
 * fuzz_stream_model() - read the whole stream as the relay must
 */
static void fuzz_stream_model(void)
{
	size_t p = 0;

	fuzz_stream_nexp = fuzz_stream_seen = 0;
	fuzz_stream_short = fuzz_stream_long = 0;
	fuzz_stream_lost = false;

	while (fuzz_stream_len - p >= 4) {
		uint32_t len = fz_get32(fuzz_stream + p);

		if (len > FUZZ_STREAM_SKIP_MAX) {
			fuzz_stream_lost = true;
			return;
		}
		if (fuzz_stream_len - p - 4 < len)
			return;		/* cut by the end of the input */

		if (len < FUZZ_STREAM_FRAME_MIN) {
			fuzz_stream_short++;
		} else if (len > FUZZ_STREAM_FRAME_MAX) {
			fuzz_stream_long++;
		} else {
			fuzz_stream_exp[fuzz_stream_nexp].off =
				(uint32_t)(p + 4);
			fuzz_stream_exp[fuzz_stream_nexp++].len = len;
		}
		p += 4 + len;
	}
}

/**
 * fuzz_stream_connect() - connect as a new guest, read what the relay sends
 *
 * Return: connected socket, non-blocking
 */
static int fuzz_stream_connect(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	const char *path = fuzz_init_stream();
	int fd, sndbuf = FUZZ_STREAM_SNDBUF;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		fuzz_stream_fail("can't connect to the relay's socket");
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	fuzz_guest_set(fd);
	fuzz_pump(1);		/* the relay accepts */
	return fd;
}

/**
 * fuzz_stream_send() - write one chunk, running the relay while it's full
 * @fd:		our end
 * @buf:	chunk
 * @len:	its length
 *
 * Return: 0 when sent, -1 if the relay hung up
 */
static int fuzz_stream_send(int fd, const uint8_t *buf, size_t len)
{
	unsigned int rounds = 0;

	while (len) {
		ssize_t n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno != EAGAIN)
			return -1;	/* EPIPE, ECONNRESET: it closed */
		if (n < 0) {
			if (++rounds == FUZZ_STREAM_ROUNDS)
				fuzz_stream_fail("the relay stopped reading");
			fuzz_pump(1);
			continue;
		}
		buf += n;
		len -= (size_t)n;
	}
	fuzz_pump(1);		/* one read: ends where the chunk ends */
	return 0;
}

/**
 * fuzz_stream_end() - shut our side, run the relay until it hung up
 * @fd:		our end, closed here
 */
static void fuzz_stream_end(int fd)
{
	unsigned int i;

	shutdown(fd, SHUT_WR);
	for (i = 0; i < FUZZ_STREAM_ROUNDS && !fuzz_guest_hung_up(); i++)
		fuzz_pump(1);
	if (!fuzz_guest_hung_up())
		fuzz_stream_fail("the relay did not close a connection "
				 "whose guest hung up");
	fuzz_guest_set(-1);
	close(fd);
	fuzz_pump(1);
}

/**
 * fuzz_stream_out() - see frames the relay sends: the ARP reply
 * @frame:	frame
 * @len:	its length
 */
static void fuzz_stream_out(const uint8_t *frame, size_t len)
{
	if (len >= 14 + 28 && fz_get16(frame + 12) == FZ_ETH_ARP &&
	    fz_get16(frame + 14 + 6) == 2 &&
	    !memcmp(frame + 14 + 14, fz_gw4, 4) &&
	    !memcmp(frame + 14 + 24, fz_guest4, 4))
		fuzz_stream_arp_seen = true;
}

/**
 * fuzz_stream_arp() - an ARP request from the guest, with its prefix
 * @f:		output, 4 + 14 + 28 bytes
 * @tpa:	address asked for
 */
static void fuzz_stream_arp(uint8_t *f, const uint8_t *tpa)
{
	static const uint8_t arp_hdr[8] = { 0, 1, 8, 0, 6, 4, 0, 1 };

	fz_put32(f, 14 + 28);
	fz_eth(f + 4, fz_bcast_mac, fz_guest_mac, FZ_ETH_ARP);
	memcpy(f + 18, arp_hdr, sizeof(arp_hdr));
	memcpy(f + 26, fz_guest_mac, 6);
	memcpy(f + 32, fz_guest4, 4);
	memset(f + 36, 0, 6);
	memcpy(f + 42, tpa, 4);
}

/**
 * fuzz_stream_arp_check() - a new connection must be served
 *
 * The guest announces its address first: a fuzzed frame may have made
 * the relay see the gateway's as the guest's, which it never answers for.
 */
static void fuzz_stream_arp_check(void)
{
	uint8_t f[2 * (4 + 14 + 28)];
	unsigned int i;
	int fd;

	fuzz_stream_arp(f, fz_guest4);
	fuzz_stream_arp(f + sizeof(f) / 2, fz_gw4);

	fuzz_stream_arp_seen = false;
	fd = fuzz_stream_connect();
	if (fuzz_stream_send(fd, f, sizeof(f)))
		fuzz_stream_fail("the relay hung up on a new connection");
	for (i = 0; i < FUZZ_STREAM_ROUNDS && !fuzz_stream_arp_seen; i++)
		fuzz_pump(1);
	if (!fuzz_stream_arp_seen)
		fuzz_stream_fail("no ARP reply on a new connection");
	fuzz_stream_end(fd);
}

/**
 * fuzz_stream_counters() - the relay's counters must agree with the model
 * @s0:		counters before the input
 */
static void fuzz_stream_counters(const struct tap_stats *s0)
{
	const struct tap_stats *s = tap_stats_get();

	if (s->rx_frames - s0->rx_frames != fuzz_stream_nexp)
		fuzz_stream_fail("frames counted differ from the stream's");
	if (s->rx_drop[TAP_DROP_SHORT] - s0->rx_drop[TAP_DROP_SHORT] !=
	    fuzz_stream_short)
		fuzz_stream_fail("short frames counted differ");
	if (s->rx_drop[TAP_DROP_LONG] - s0->rx_drop[TAP_DROP_LONG] !=
	    fuzz_stream_long + fuzz_stream_lost)
		fuzz_stream_fail("long frames counted differ");
}

/**
 * LLVMFuzzerTestOneInput() - one guest connection, then a new one
 * @data:	records (see the top of this file)
 * @size:	input length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tap_stats s0;
	size_t k, from = 0;
	int fd;

	fuzz_init_stream();
	fuzz_set_out(fuzz_stream_out);
	fuzz_stream_parse(data, size);
	fuzz_stream_model();

	s0 = *tap_stats_get();
	fd = fuzz_stream_connect();
	fuzz_stream_checking = true;
	for (k = 0; k < fuzz_stream_nchunks; k++) {
		size_t to = fuzz_stream_ends[k];

		if (fuzz_stream_send(fd, fuzz_stream + from, to - from))
			break;
		from = to;
	}
	fuzz_pump(2);
	if (fuzz_guest_hung_up() != fuzz_stream_lost)
		fuzz_stream_fail(fuzz_stream_lost ?
				 "the relay kept a stream that lost framing" :
				 "the relay hung up on a stream that kept "
				 "its framing");
	fuzz_stream_end(fd);
	fuzz_stream_checking = false;

	if (fuzz_stream_seen != fuzz_stream_nexp)
		fuzz_stream_fail("frames of the stream not handed over");
	fuzz_stream_counters(&s0);

	fuzz_stream_arp_check();
	fuzz_tick();
	return 0;
}
