// SPDX-License-Identifier: GPL-2.0-or-later
/* test_stream.c - unit tests for passt's stream backend (stream/stream.c)
 *
 * Theory of operation: the backend is started through tap_init() with
 * -F pointing to one end of a socket pair (as QEMU 10.1 passes it); the
 * test plays the guest on the other end, and runs the epoll set itself.
 *
 * Output: frames of random lengths (14 bytes to the largest) go through
 * tap_send_frames() in random batches while the guest side reads random
 * amounts, with a send buffer at the kernel's minimum, so that most writes
 * stop in the middle of a frame. Every frame must arrive whole, in order,
 * with its length prefix (the framing never breaks), and whenever
 * tap_send_frames() takes fewer frames than offered, EPOLLOUT must be in
 * the epoll set (design.md invariant 2, read from /proc/self/fdinfo).
 *
 * Input: a stream of frames written in random pieces must reach
 * net_input() frame by frame (counted by net_stats) and the capture file
 * (-p) byte for byte. Frames of 0 to 13 bytes and frames longer than the
 * largest are skipped and counted, the stream stays up; only a length
 * beyond the skip limit closes it. With -1 the process exits when the
 * guest goes away.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "../../conf/ctx.h"
#include "../../net/net.h"
#include "../../tap/tap.h"
#include "relay_sink.h"
#include "../../util/epoll_ref.h"
#include "../../util/pcap.h"

#define NF		300		/* frames per test */
#define FMIN		14
#define FMAX		(14 + 4 + 65535)
#define PATTERN_LEN	(FMAX + NF * 13 + 64)
#define RBUF_SIZE	(8 * 1024 * 1024)
#define ITER_MAX	2000000

/* ck_assert() writes to a file on every call: too slow for hot loops */
#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			ck_abort_msg(__VA_ARGS__);			\
	} while (0)

static struct ctx c;
static int guest = -1;			/* the test's end of the pair */
static int relay_fd = -1;		/* the backend's end */
static uint8_t pattern[PATTERN_LEN];
static size_t flen[NF];
static uint8_t rbuf[RBUF_SIZE];
static size_t rfill;
static size_t got;

/**
 * frame_data() - content of frame @i (a window into the pattern)
 * @i:		frame index
 *
 * Return: pointer to its first byte
 */
static uint8_t *frame_data(size_t i)
{
	return pattern + i * 13;
}

/**
 * rand_len() - a frame length: often small, often large, sometimes any
 *
 * Return: length between FMIN and FMAX
 */
static size_t rand_len(void)
{
	switch (rand() % 4) {
	case 0:
		return FMIN + (size_t)rand() % 100;
	case 1:
		return FMAX - (size_t)rand() % 100;
	default:
		return FMIN + (size_t)rand() % (FMAX - FMIN + 1);
	}
}

/**
 * setup() - start the backend on a socket pair
 * @wmem:	--tap-wmem, 0 for the default
 * @one_off:	-1
 * @pcap:	capture file, NULL for none
 */
static void setup(int wmem, bool one_off, const char *pcap)
{
	int sv[2];
	size_t i;

	signal(SIGPIPE, SIG_IGN);	/* as passt does: see errors instead */
	srand(42);
	for (i = 0; i < PATTERN_LEN; i++)
		pattern[i] = (uint8_t)rand();
	for (i = 0; i < NF; i++)
		flen[i] = rand_len();

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(&c, 0, sizeof(c));
	c.mode = MODE_PASST;
	c.epollfd = epoll_create1(0);
	ck_assert_int_ge(c.epollfd, 0);
	c.fd_tap_preopened = sv[0];
	c.tap_wmem = wmem;
	c.one_off = one_off;
	if (pcap)
		snprintf(c.pcap, sizeof(c.pcap), "%s", pcap);

	relay_sink_set();
	ck_assert_int_eq(tap_init(&c), 0);
	ck_assert(tap_connected(&c));
	relay_fd = sv[0];
	guest = sv[1];
	ck_assert_int_eq(fcntl(guest, F_SETFL, O_NONBLOCK), 0);
	rfill = got = 0;
}

/**
 * pump() - run the backend's handlers for pending epoll events
 */
static void pump(void)
{
	struct epoll_event ev[8];
	int n, i;

	n = epoll_wait(c.epollfd, ev, 8, 0);
	for (i = 0; i < n; i++) {
		union epoll_ref ref = { .u64 = ev[i].data.u64 };

		tap_handler(&c, ref, ev[i].events, 0);
	}
}

/**
 * out_armed() - is EPOLLOUT in the epoll set for the backend's socket?
 *
 * Return: true if armed
 */
static bool out_armed(void)
{
	char path[64], line[256];
	bool armed = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", c.epollfd);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned int ev;
		int tfd;

		if (sscanf(line, "tfd: %d events: %x", &tfd, &ev) == 2 &&
		    tfd == relay_fd)
			armed = ev & EPOLLOUT;
	}
	fclose(f);
	return armed;
}

/**
 * drain() - read up to @max bytes as the guest, check complete frames
 * @max:	bytes to read at most
 */
static void drain(size_t max)
{
	size_t p = 0;
	ssize_t n;

	max = max < RBUF_SIZE - rfill ? max : RBUF_SIZE - rfill;
	n = read(guest, rbuf + rfill, max);
	if (n < 0) {
		CHECK(errno == EAGAIN, "read: %s", strerror(errno));
		return;
	}
	rfill += (size_t)n;

	while (rfill - p >= 4) {
		uint32_t be, len;

		memcpy(&be, rbuf + p, 4);
		len = ntohl(be);
		CHECK(got < NF, "more frames than sent");
		CHECK(len == flen[got], "frame %zu: length %u, sent %zu",
		      got, len, flen[got]);
		if (rfill - p - 4 < len)
			break;
		CHECK(!memcmp(rbuf + p + 4, frame_data(got), len),
		      "frame %zu: content differs", got);
		got++;
		p += 4 + len;
	}
	memmove(rbuf, rbuf + p, rfill - p);
	rfill -= p;
}

/**
 * send_all() - push NF frames through the backend against a slow reader
 * @bpf:	buffers per frame (1, or 2: header and rest)
 */
static void send_all(size_t bpf)
{
	static struct iovec iov[NF * 2];
	size_t next = 0, iter = 0, i, shorts = 0;

	for (i = 0; i < NF; i++) {
		if (bpf == 1) {
			iov[i].iov_base = frame_data(i);
			iov[i].iov_len = flen[i];
		} else {
			iov[2 * i].iov_base = frame_data(i);
			iov[2 * i].iov_len = FMIN;
			iov[2 * i + 1].iov_base = frame_data(i) + FMIN;
			iov[2 * i + 1].iov_len = flen[i] - FMIN;
		}
	}

	while (got < NF) {
		CHECK(iter++ < ITER_MAX, "stuck: %zu frames offered, %zu "
		      "received", next, got);

		if (next < NF) {
			size_t want = 1 + (size_t)rand() % 64, k;

			if (want > NF - next)
				want = NF - next;
			k = tap_send_frames(&c, iov + next * bpf, bpf, want);
			CHECK(k <= want, "took %zu of %zu", k, want);
			if (k < want) {
				shorts++;
				CHECK(out_armed(), "short write (%zu of %zu) "
				      "without EPOLLOUT armed", k, want);
			}
			next += k;
		}

		drain(1 + (size_t)rand() % 150000);
		pump();
	}

	ck_assert_uint_eq(next, NF);
	ck_assert_uint_eq(rfill, 0);
	ck_assert_uint_eq(tap_stats_get()->tx_frames, NF);
	ck_assert_uint_gt(shorts, 0);	/* the test did exercise that */
}

START_TEST(test_output_backpressure)
{
	setup(4096, false, NULL);
	send_all(1);
}
END_TEST

START_TEST(test_output_backpressure_2bufs)
{
	setup(4096, false, NULL);
	send_all(2);
}
END_TEST

START_TEST(test_output_default_buffers)
{
	setup(0, false, NULL);
	send_all(1);
}
END_TEST

/**
 * read_all() - read a whole file
 * @path:	file
 * @len:	set to its length
 *
 * Return: allocated contents
 */
static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	uint8_t *buf;
	long l;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	l = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)l + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)l, f), (size_t)l);
	fclose(f);
	*len = (size_t)l;
	return buf;
}

/**
 * write_pumped() - write a stream as the guest, in random pieces, while
 *		    the backend reads it
 * @buf:	bytes
 * @len:	their number
 */
static void write_pumped(const uint8_t *buf, size_t len)
{
	size_t off = 0, iter = 0;

	while (off < len) {
		size_t chunk = 1 + (size_t)rand() % 100000;
		ssize_t n;

		CHECK(iter++ < ITER_MAX, "stuck at %zu of %zu bytes", off,
		      len);
		if (chunk > len - off)
			chunk = len - off;
		n = write(guest, buf + off, chunk);
		if (n > 0)
			off += (size_t)n;
		pump();
	}
	for (iter = 0; iter < 16; iter++)
		pump();
}

/**
 * put_frame() - append a length prefix and that many bytes to a stream
 * @stream:	stream buffer
 * @at:		offset to write at
 * @len:	frame length
 * @ethertype:	also write a local experimental EtherType (frame >= 14)
 *
 * Return: offset after the frame
 */
static size_t put_frame(uint8_t *stream, size_t at, uint32_t len,
			bool ethertype)
{
	uint32_t be = htonl(len);
	size_t i;

	memcpy(stream + at, &be, 4);
	for (i = 0; i < len; i++)
		stream[at + 4 + i] = pattern[i % PATTERN_LEN];
	if (ethertype) {
		stream[at + 4 + 12] = 0x88;
		stream[at + 4 + 13] = 0xb5;
	}
	return at + 4 + len;
}

START_TEST(test_input_split)
{
	char pcap[] = "/tmp/test_stream_XXXXXX";
	size_t total = 0, i, p, len, iter = 0;
	uint64_t frames0, bytes0;
	static uint8_t stream[NF * (FMAX + 4)];
	static size_t soff[NF];
	uint8_t *cap;
	uint32_t u32;
	int fd;

	fd = mkstemp(pcap);
	ck_assert_int_ge(fd, 0);
	close(fd);
	setup(0, false, pcap);
	frames0 = net_stats.frames;
	bytes0 = net_stats.bytes;

	/* Frames with a local experimental EtherType: counted, dropped */
	for (i = 0; i < NF; i++) {
		uint32_t be = htonl((uint32_t)flen[i]);
		uint8_t *f = frame_data(i);

		f[12] = 0x88;
		f[13] = 0xb5;
		memcpy(stream + total, &be, 4);
		memcpy(stream + total + 4, f, flen[i]);
		soff[i] = total + 4;
		total += 4 + flen[i];
	}

	write_pumped(stream, total);
	while (net_stats.frames - frames0 < NF && iter++ < ITER_MAX)
		pump();

	ck_assert_uint_eq(net_stats.frames - frames0, NF);
	ck_assert_uint_eq(net_stats.bytes - bytes0, total - 4 * NF);
	ck_assert_uint_eq(tap_stats_get()->rx_frames, NF);
	ck_assert_uint_eq(tap_stats_get()->rx_errors, 0);

	/* The capture holds each frame, whole, in order */
	cap = read_all(pcap, &len);
	unlink(pcap);
	ck_assert_uint_ge(len, 24);
	memcpy(&u32, cap, 4);
	ck_assert_uint_eq(u32, 0xa1b2c3d4);
	memcpy(&u32, cap + 16, 4);
	ck_assert_uint_eq(u32, PCAP_SNAPLEN);
	memcpy(&u32, cap + 20, 4);
	ck_assert_uint_eq(u32, 1);
	for (i = 0, p = 24; i < NF; i++) {
		uint32_t caplen, olen;

		ck_assert_uint_le(p + 16, len);
		memcpy(&caplen, cap + p + 8, 4);
		memcpy(&olen, cap + p + 12, 4);
		ck_assert_uint_eq(caplen, flen[i]);
		ck_assert_uint_eq(olen, flen[i]);
		ck_assert_uint_le(p + 16 + caplen, len);
		ck_assert(!memcmp(cap + p + 16, stream + soff[i], caplen));
		p += 16 + caplen;
	}
	ck_assert_uint_eq(p, len);
	free(cap);
}
END_TEST

/* Longest frame the backend skips, and one more byte: see stream.c */
#define SKIP_MAX	(16 * FMAX)

START_TEST(test_input_bad_lengths)
{
	static const uint32_t longs[] = { FMAX + 1, 200000, SKIP_MAX };
	static uint8_t stream[4 * 40 + 14 * 13 + 200000 + SKIP_MAX +
			      FMAX + 3 * (FMAX + 4)];
	const struct tap_stats *t;
	uint64_t frames0;
	size_t at = 0, i;
	uint32_t len;

	setup(0, false, NULL);
	frames0 = net_stats.frames;

	/* Every length shorter than an Ethernet header, each followed by as
	 * many bytes, a good frame, the longest ones skipped, good frames:
	 * the framing holds, the stream stays up
	 */
	for (len = 0; len < FMIN; len++)
		at = put_frame(stream, at, len, false);
	at = put_frame(stream, at, 60, true);
	for (i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
		at = put_frame(stream, at, longs[i], true);
	at = put_frame(stream, at, FMIN, true);
	at = put_frame(stream, at, FMAX, true);
	ck_assert_uint_le(at, sizeof(stream));

	write_pumped(stream, at);

	t = tap_stats_get();
	ck_assert(tap_connected(&c));
	ck_assert_uint_eq(t->rx_drop[TAP_DROP_SHORT], FMIN);
	ck_assert_uint_eq(t->rx_drop[TAP_DROP_LONG], 3);
	ck_assert_uint_eq(t->rx_frames, 3);
	ck_assert_uint_eq(t->rx_bytes, 60 + FMIN + FMAX);
	ck_assert_uint_eq(t->rx_errors, 0);
	ck_assert_uint_eq(net_stats.frames - frames0, 3);
}
END_TEST

START_TEST(test_input_lost_framing)
{
	uint8_t bad[4 + FMIN];
	uint32_t be = htonl(SKIP_MAX + 1);

	setup(0, false, NULL);
	memset(bad, 0, sizeof(bad));
	memcpy(bad, &be, 4);
	ck_assert_int_eq(write(guest, bad, sizeof(bad)), sizeof(bad));
	pump();
	ck_assert(!tap_connected(&c));
	ck_assert_uint_eq(tap_stats_get()->rx_drop[TAP_DROP_LONG], 1);
	ck_assert_uint_eq(tap_stats_get()->rx_frames, 0);

	/* Frames for a guest that is gone are dropped, not kept */
	{
		struct iovec iov = { .iov_base = pattern, .iov_len = 60 };

		ck_assert_uint_eq(tap_send_frames(&c, &iov, 1, 1), 1);
	}
}
END_TEST

START_TEST(test_one_off_exit)
{
	setup(0, true, NULL);
	close(guest);
	pump();
	ck_abort_msg("still running after the guest left with -1");
}
END_TEST

/**
 * stream_suite() - the backend's tests
 *
 * Return: suite
 */
static Suite *stream_suite(void)
{
	Suite *s = suite_create("stream");
	TCase *tc = tcase_create("stream");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_output_backpressure);
	tcase_add_test(tc, test_output_backpressure_2bufs);
	tcase_add_test(tc, test_output_default_buffers);
	tcase_add_test(tc, test_input_split);
	tcase_add_test(tc, test_input_bad_lengths);
	tcase_add_test(tc, test_input_lost_framing);
	tcase_add_exit_test(tc, test_one_off_exit, 0);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(stream_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
