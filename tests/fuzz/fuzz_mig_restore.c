// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_mig_restore.c - libFuzzer target: a migration's state restored,
 *			TCP connections and all, behind a real repair helper
 *
 * Theory of operation
 *
 * fuzz_migrate checks the parser alone (migrate_check()); this target
 * goes through what a target passt does with a state: the relay of the
 * harness runs with --vhost-user, migrate_init() sets up its repair
 * socket (the vhost-user socket's path with ".repair"), and the handlers
 * migrate/ registers for the device state (struct tap_state_ops) are
 * called as vhost_user/vu_migrate.c calls them: load() reads the state
 * from a pipe to its end, then start() (the guest runs here: connections
 * go live, those that could not be restored are reset, tcp/tcp_mig_lost.c)
 * or discard() (the front-end left). The harness captures those handlers
 * by linking tap_state_register() wrapped (-Wl,--wrap, Makefile).
 *
 * The repair helper is the real one: helper/passt_repair.c is compiled in
 * (as in fuzz_repair_helper.c) and its message handler, repair_one(), runs
 * in a thread of the harness, on a connection the harness opens to the
 * relay's repair socket before each input, so that the relay finds it
 * connected when the state names connections. It really sets TCP_REPAIR
 * (the fuzzer has CAP_NET_ADMIN in its namespace, tests/fuzz/run.sh), so
 * the relay's sockets are bound and connected in repair mode on the
 * namespace's loopback, their queues filled, then taken out of repair
 * mode. The relay closes the connection after start() or discard(), and
 * the helper thread waits for the next.
 *
 * Input: byte 0 for the harness: bit 0, the guest runs here (start())
 * rather than the front-end leaving (discard()); bits 1-3, loop
 * iterations afterwards, each after 10 ms of virtual time, times 2; bit
 * 4, the harness writes the END record's count and checksum so that they
 * match what precedes them (a mutated state then gets past its integrity
 * check to start(), which the fuzzer could not reach by itself). The
 * rest is the state, as a source writes it (doc/migration.md); at most
 * FZM_STATE_MAX bytes of it are read.
 *
 * What must hold, besides no crash, no sanitizer report and no stall: the
 * relay keeps serving (its loop runs afterwards, frames of the guest are
 * taken), a refused state and a discarded one leave no flow behind (the
 * flow table holds what it held before the load), and the helper is
 * never asked anything it refuses (a refusal makes its thread abort the
 * run: the relay sends only TCP sockets).
 *
 * Seeds: FUZZ_MIG_SEEDS=DIR makes the target write them instead of
 * fuzzing (fzm_seeds()): states of real connections on the loopback,
 * dumped in repair mode.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>

/* The helper, as it is, but for these three names */
static FILE *fzm_err;
static void __attribute__((noreturn)) fzm_helper_exit(int status);
#define main repair_helper_main
#undef stderr
#define stderr fzm_err
#define _exit(status) fzm_helper_exit(status)
#include "../../helper/passt_repair.c"
#undef _exit
#undef stderr
#define stderr stderr
#undef main

#include "fuzz.h"
#include "fuzz_build.h"
#include "../../conf/ctx.h"
#include "../../flow/flow.h"
#include "../../migrate/mig_io.h"
#include "../../migrate/migrate.h"
#include "../../migrate/repair.h"
#include "../../tap/tap.h"
#include "../../tcp/tcp_internal.h"
#include "../../tcp/tcp_mig_rec.h"
#include "../../tcp/tcp_repair.h"
#include "../../util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
void __real_tap_state_register(const struct tap_state_ops *ops);
void __wrap_tap_state_register(const struct tap_state_ops *ops);

#define FZM_STATE_MAX	(1 << 20)	/* bytes of a state read (pipe) */
#define FZM_SEED_QUEUE	3000		/* bytes queued in the seeds */

static const struct tap_state_ops *fzm_ops;
static int fzm_to_helper[2] = { -1, -1 };	/* connections, by number */
static __thread jmp_buf fzm_helper_jmp;

/**
 * __wrap_tap_state_register() - keep migrate/'s handlers, register them
 * @ops:	handlers
 */
void __wrap_tap_state_register(const struct tap_state_ops *ops)
{
	fzm_ops = ops;
	__real_tap_state_register(ops);
}

/**
 * fzm_fail() - an expectation failed: say what, abort
 * @what:	what
 */
static void __attribute__((noreturn)) fzm_fail(const char *what)
{
	fprintf(stderr, "fuzz_mig_restore: %s (%s)\n", what, strerror(errno));
	abort();
}

/**
 * fzm_helper_exit() - the helper refused a request of the relay
 * @status:	exit status
 */
static void fzm_helper_exit(int status)
{
	(void)status;
	fzm_fail("passt-repair refused a request of the relay");
}

/**
 * fzm_helper() - the helper's thread: serve each connection it is given
 * @arg:	unused
 *
 * Return: NULL, never
 */
static void *fzm_helper(void *arg)
{
	int s;

	(void)arg;
	for (;;) {
		if (read(fzm_to_helper[0], &s, sizeof(s)) != sizeof(s))
			fzm_fail("harness: no connection for the helper");
		if (!setjmp(fzm_helper_jmp)) {
			while (repair_one(s))
				;
		}
		close(s);
	}
	return NULL;
}

/**
 * fzm_cleanup() - remove the repair socket, before the harness removes
 *		   its directory (atexit() handlers run in reverse order)
 */
static void fzm_cleanup(void)
{
	unlink(repair_path());
}

/**
 * fzm_init() - once: the relay, its repair socket, the helper's thread
 */
static void fzm_init(void)
{
	static bool done;
	pthread_t t;

	if (done)
		return;
	done = true;

	fuzz_init_vhost_user();
	if (migrate_init(&fuzz_ctx) || !fzm_ops || !*repair_path())
		fzm_fail("migrate_init() failed");
	atexit(fzm_cleanup);
	fzm_err = fuzz_verbose ? stderr : fopen("/dev/null", "w");
	if (!fzm_err)
		fzm_fail("can't open /dev/null");
	repair_uid = getuid();
	if (pipe2(fzm_to_helper, O_CLOEXEC) ||
	    pthread_create(&t, NULL, fzm_helper, NULL))
		fzm_fail("can't start the helper's thread");
}

/**
 * fzm_helper_connect() - the helper connects to the relay's repair socket
 *
 * The relay accepts it only when a state names connections: until then it
 * waits in the backlog (of one), and a new one can't connect (EAGAIN).
 */
static void fzm_helper_connect(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", repair_path());
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		fzm_fail("can't create a socket");
	if (connect(s, (struct sockaddr *)&a, sizeof(a))) {
		if (errno != EAGAIN)
			fzm_fail("can't connect to the relay's repair socket");
		close(s);	/* the last one is still waiting */
		return;
	}
	if (fcntl(s, F_SETFL, 0))
		fzm_fail("can't make the helper's socket blocking");
	if (write(fzm_to_helper[1], &s, sizeof(s)) != sizeof(s))
		fzm_fail("can't hand the connection to the helper");
}

/**
 * fzm_load() - load() with the state in a pipe, ended
 * @state:	state
 * @len:	its length
 *
 * Return: what load() returned
 */
static int fzm_load(const uint8_t *state, size_t len)
{
	int p[2], rc;

	if (pipe2(p, O_CLOEXEC))
		fzm_fail("can't create a pipe");
	if (len > FZM_STATE_MAX)
		len = FZM_STATE_MAX;
	if (len > 65536 && fcntl(p[1], F_SETPIPE_SZ, FZM_STATE_MAX) < 0)
		len = 65536;
	if (len && write(p[1], state, len) != (ssize_t)len)
		fzm_fail("can't write the state into a pipe");
	close(p[1]);
	rc = fzm_ops->load(&fuzz_ctx, p[0]);
	close(p[0]);
	return rc;
}

/**
 * fzm_fix_end() - write the END record's count and checksum as they
 *		   should be, if there is one
 * @state:	state, changed
 * @len:	its length
 */
static void fzm_fix_end(uint8_t *state, size_t len)
{
	size_t pos = MIG_HDR_LEN;
	uint32_t records = 0;

	while (len - pos >= 8 && pos < len) {
		uint32_t rlen = (uint32_t)state[pos + 4] << 24 |
				(uint32_t)state[pos + 5] << 16 |
				(uint32_t)state[pos + 6] << 8 | state[pos + 7];
		uint16_t type = (uint16_t)(state[pos] << 8 | state[pos + 1]);
		uint8_t e[MIG_END_LEN];
		struct mig_buf b = { .p = e, .size = sizeof(e) };

		if (type == MIG_REC_END) {
			if (rlen != MIG_END_LEN || len - pos - 8 < rlen)
				return;
			mig_put_u32(&b, records);
			mig_put_u32(&b, mig_crc32(0, state, pos + 8));
			memcpy(state + pos + 8, e, sizeof(e));
			return;
		}
		if (len - pos - 8 < rlen)
			return;
		pos += 8 + rlen;
		records++;
	}
}

/**
 * fzm_ping() - the guest pings the gateway: the relay must take it
 */
static void fzm_ping(void)
{
	static const uint8_t frame[] = {
		/* Ethernet: to the relay, from the guest, IPv4 */
		0x52, 0x56, 0x00, 0x00, 0x00, 0x01,
		0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x08, 0x00,
		/* IPv4: 28 bytes, ICMP, 10.0.2.15 to 10.0.2.2 */
		0x45, 0x00, 0x00, 0x1c, 0x00, 0x01, 0x40, 0x00,
		0x40, 0x01, 0x22, 0xc4, 10, 0, 2, 15, 10, 0, 2, 2,
		/* ICMP echo request, id 1, sequence 1 */
		0x08, 0x00, 0xf7, 0xfd, 0x00, 0x01, 0x00, 0x01,
	};

	fuzz_frame_in(frame, sizeof(frame));
}

/**
 * LLVMFuzzerTestOneInput() - restore one state
 * @data:	control byte, then the state
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t state[FZM_STATE_MAX];
	unsigned int rounds, i, flows;
	bool start;

	fzm_init();
	if (!size)
		return 0;
	start = data[0] & 1;
	rounds = ((data[0] >> 1) & 7) * 2;
	size = MIN(size - 1, sizeof(state));
	memcpy(state, data + 1, size);
	if (data[0] & 0x10)
		fzm_fix_end(state, size);

	fzm_helper_connect();
	flows = flow_in_use();
	if (fzm_load(state, size)) {
		if (flow_in_use() != flows)
			fzm_fail("a refused state left flows behind");
	} else if (start) {
		fzm_ops->start(&fuzz_ctx);
	} else {
		fzm_ops->discard(&fuzz_ctx);
		if (flow_in_use() != flows)
			fzm_fail("a discarded state left flows behind");
	}
	/* Whatever happened, the helper goes when the step is over */
	repair_close(&fuzz_ctx);

	for (i = 0; i < rounds; i++)
		fuzz_advance(10);
	fzm_ping();
	fuzz_tick();
	return 0;
}

/**
 * fzm_seed_guest() - the guest record of the seeds
 * @o:		stream
 */
static void fzm_seed_guest(struct mig_out *o)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	uint8_t buf[6 + 2 + 4 + 16 + 16] = { 0 };
	struct mig_buf b = { .p = buf, .size = sizeof(buf) };
	struct in6_addr a6 = { .s6_addr = { 0xfd, [15] = 0x15 } };
	struct in6_addr ll = { .s6_addr = { 0xfe, 0x80, [15] = 0x15 } };
	uint8_t a4[4] = { 10, 0, 2, 15 };

	mig_put_bytes(&b, mac, sizeof(mac));
	mig_put_u16(&b, 0);
	mig_put_bytes(&b, a4, sizeof(a4));
	mig_put_bytes(&b, &a6, sizeof(a6));
	mig_put_bytes(&b, &ll, sizeof(ll));
	mig_out_small(o, MIG_REC_GUEST, &b);
}

/**
 * fzm_seed_sock() - a real connection on the loopback, dumped
 * @v6:		over ::1, else 127.0.0.1
 * @rcvq:	bytes the peer sends first (our receive queue)
 * @sndq:	bytes put in our send queue in repair mode
 * @st:		its state, filled
 * @q:		its queues, filled: receive queue, then send queue
 * @local:	its local address, filled
 * @peer:	its peer's, filled
 */
static void fzm_seed_sock(bool v6, uint32_t rcvq, uint32_t sndq,
			  struct tcp_repair_state *st, uint8_t *q,
			  union sockaddr_inany *local,
			  union sockaddr_inany *peer)
{
	static uint8_t fill[FZM_SEED_QUEUE], sbuf[FZM_SEED_QUEUE];
	socklen_t sl = sizeof(*local);
	int af = v6 ? AF_INET6 : AF_INET, l, s, a, on = 1, qn = TCP_SEND_QUEUE;

	memset(local, 0, sizeof(*local));
	if (v6) {
		local->sa6.sin6_family = AF_INET6;
		local->sa6.sin6_addr = in6addr_loopback;
	} else {
		local->sa4.sin_family = AF_INET;
		local->sa4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	}
	l = socket(af, SOCK_STREAM, 0);
	s = socket(af, SOCK_STREAM, 0);
	if (l < 0 || s < 0 || bind(l, &local->sa, sizeof(*local)) ||
	    listen(l, 1) || getsockname(l, &local->sa, &sl) ||
	    connect(s, &local->sa, sl) || (a = accept(l, NULL, NULL)) < 0)
		fzm_fail("seeds: can't connect on the loopback");
	memset(fill, 'r', sizeof(fill));
	if (rcvq && send(a, fill, rcvq, 0) != (ssize_t)rcvq)
		fzm_fail("seeds: can't send");
	usleep(100 * 1000);

	if (setsockopt(s, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)) ||
	    setsockopt(s, IPPROTO_TCP, TCP_REPAIR_QUEUE, &qn, sizeof(qn)))
		fzm_fail("seeds: no repair mode (CAP_NET_ADMIN?)");
	memset(fill, 's', sizeof(fill));
	if (sndq && send(s, fill, sndq, 0) != (ssize_t)sndq)
		fzm_fail("seeds: can't fill the send queue");
	if (tcp_repair_dump(s, st, sbuf, q, FZM_SEED_QUEUE))
		fzm_fail("seeds: can't dump the socket");
	memcpy(q + st->rcvq, sbuf, st->sndq);

	sl = sizeof(*local);
	if (getsockname(s, &local->sa, &sl))
		fzm_fail("seeds: getsockname()");
	sl = sizeof(*peer);
	if (getpeername(s, &peer->sa, &sl))
		fzm_fail("seeds: getpeername()");
	close(s);	/* in repair mode: silently */
	close(a);
	close(l);
}

/**
 * fzm_seed_conn() - our state toward the guest, for a dumped socket
 * @conn:	filled
 * @v6:		IPv6
 * @st:		the socket's state
 * @port:	the guest's port
 */
static void fzm_seed_conn(struct tcp_conn *conn, bool v6,
			  const struct tcp_repair_state *st, uint16_t port)
{
	memset(conn, 0, sizeof(*conn));
	conn->v4 = !v6;
	if (v6) {
		struct in6_addr g = { .s6_addr = { 0xfd, [15] = 0x15 } };
		struct in6_addr r = { .s6_addr = { 0xfd, [15] = 0x02 } };

		conn->guest_addr.a6 = g;
		conn->remote_addr.a6 = r;
	} else {
		struct in_addr g = { htonl(0x0a00020f) };
		struct in_addr r = { htonl(0x0a000202) };

		inany_from_v4(&conn->guest_addr, g);
		inany_from_v4(&conn->remote_addr, r);
	}
	conn->guest_port = port;
	conn->remote_port = FZ_TCP_PORT;
	conn->ws_from_guest = 7;
	conn->ws_to_guest = 7;
	conn->mss = 1460;
	/* All of the receive queue sent to the guest, none acknowledged */
	conn->seq_acked = st->rcv_seq;
	conn->seq_to_guest = st->rcv_seq + st->rcvq;
	conn->seq_max_sent = conn->seq_to_guest;
	conn->wnd_from_guest = 64240;
	conn->seq_from_guest = st->snd_seq + st->sndq;
	conn->seq_ack_sent = conn->seq_from_guest;
	conn->wnd_to_guest = 65535;
	conn->rto_ms = 1000;
	conn->srtt_ms = 10;
	conn->rttvar_ms = 5;
}

/**
 * fzm_seed() - write one seed: a state with connections
 * @dir:	directory
 * @name:	file name
 * @ctl:	control byte
 * @n:		connections
 * @v6:		over IPv6
 * @rcvq:	bytes in each receive queue
 * @sndq:	bytes in each send queue
 * @away:	the first connection's local address is not on this host
 *		(TEST-NET-1): the target can't bind it, and resets it
 */
static void fzm_seed(const char *dir, const char *name, uint8_t ctl,
		     unsigned int n, bool v6, uint32_t rcvq, uint32_t sndq,
		     bool away)
{
	static uint8_t q[4][2 * FZM_SEED_QUEUE];
	static struct mig_out o;
	struct tcp_repair_state st[4];
	char why[256], path[4096];
	unsigned int i;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, &ctl, 1) != 1)
		fzm_fail("seeds: can't write a file");
	mig_out_init(&o, fd);
	fzm_seed_guest(&o);
	for (i = 0; i < n; i++) {
		union sockaddr_inany local, peer;
		struct tcp_conn conn;

		fzm_seed_sock(v6, rcvq, sndq, &st[i], q[i], &local, &peer);
		if (away && !i && !v6)
			local.sa4.sin_addr.s_addr = htonl(0xc0000201);
		fzm_seed_conn(&conn, v6, &st[i], (uint16_t)(40000 + i));
		tcp_mig_rec_put(&o, &conn, &st[i], &local, &peer);
	}
	for (i = 0; i < n; i++) {
		uint8_t idx[4];
		struct mig_buf b = { .p = idx, .size = sizeof(idx) };

		mig_put_u32(&b, i);
		mig_out_rec(&o, MIG_REC_TCP_DATA, (uint32_t)sizeof(idx) +
			    st[i].rcvq + st[i].sndq);
		mig_out_bytes(&o, idx, sizeof(idx));
		mig_out_bytes(&o, q[i], st[i].rcvq + st[i].sndq);
	}
	if (mig_out_end(&o))
		fzm_fail("seeds: can't write the state");
	close(fd);

	/* Every seed is a state a target takes */
	f = fopen(path, "r");
	if (!f)
		fzm_fail("seeds: can't read a seed back");
	{
		static uint8_t buf[FZM_STATE_MAX];
		size_t len = fread(buf, 1, sizeof(buf), f);

		fclose(f);
		if (migrate_check(&fuzz_ctx, buf + 1, len - 1, why,
				  sizeof(why))) {
			fprintf(stderr, "seed %s refused: %s\n", name, why);
			abort();
		}
	}
}

/**
 * fzm_seeds() - write the seed corpus
 * @dir:	where
 */
static void fzm_seeds(const char *dir)
{
	fzm_seed(dir, "v4_empty_start", 0x11, 1, false, 0, 0, false);
	fzm_seed(dir, "v4_empty_discard", 0x10, 1, false, 0, 0, false);
	fzm_seed(dir, "v4_queues_start", 0x13, 1, false, 1000, 700, false);
	fzm_seed(dir, "v6_queues_start", 0x15, 1, true, 1500, 2000, false);
	fzm_seed(dir, "v4_three_start", 0x17, 3, false, 100, 50, false);
	fzm_seed(dir, "v6_two_discard", 0x12, 2, true, 10, 0, false);
	fzm_seed(dir, "v4_away_start", 0x13, 2, false, 20, 10, true);
}

/**
 * LLVMFuzzerInitialize() - with FUZZ_MIG_SEEDS=DIR, write the seeds, exit
 * @argc:	unused
 * @argv:	unused
 *
 * Return: 0
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("FUZZ_MIG_SEEDS");

	(void)argc;
	(void)argv;
	if (!dir)
		return 0;
	fzm_init();
	fzm_seeds(dir);
	exit(0);
}
