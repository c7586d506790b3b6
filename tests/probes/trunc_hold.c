// SPDX-License-Identifier: GPL-2.0-or-later
/* trunc_hold.c - probe: a window update held back after MSG_TRUNC, and the
 * relay's release of it (tcp/tcp_rcvwnd.c)
 *
 * Theory of operation: the relay keeps data for the guest in the host
 * socket, peeks it (SO_PEEK_OFF), and drops it with recv(MSG_TRUNC) as the
 * guest acknowledges it, a little at a time when the guest is slow. Linux
 * sends a window update from such a drop only if the window it can offer
 * is twice what the peer has left (tcp/tcp_rcvwnd.c explains the state
 * where that holds an update back). This probe builds the situation on
 * loopback for each configuration of CONFIGS: a receive buffer (SO_RCVBUF,
 * or autotuned), the sender's write size (which sets the size of the
 * kernel's buffers, and so how much memory a drop frees), and the size of
 * each drop. The sender always has data; after each drop the probe sees
 * whether the sender could send more at once (loopback delivers data and
 * ACKs within the system call that causes them).
 *
 * Each configuration runs twice:
 *   - the kernel alone: a drop after which the sender stays blocked with
 *     a window left, but below one of its segments, while the receiver has
 *     room for one, is a hold (a closed window is not: the kernel reopens
 *     it as soon as its accounting finds room); the probe then waits until the sender moves by itself
 *     (its probe timer) and reports how long that took;
 *   - with the relay's code: after every drop, tcp_rcvwnd_release() as the
 *     relay calls it. A hold it releases counts as a forced update (the
 *     relay's wnd_forced counter); one it leaves to the kernel's own
 *     limits (tcp/tcp_rcvwnd.c says which) is shown, and the probe waits
 *     for the sender as above; any other hold left after it is a miss.
 *
 * Each hold of the kernel alone costs the sender's probe timer, 200 ms at
 * least (some 50 s in all under TCG, where Linux 6.1 holds hundreds): an
 * argument N stops the kernel alone's run of a configuration at its N-th
 * hold, which shows the same thing (the kernel holds updates in that
 * configuration, and for how long) in a fraction of the time.
 * vm_kernel_probes.sh passes 2 (HOLD_WAITS: each hold counted is timed);
 * the run with the relay's code is never cut short, and the exit status
 * depends on the kernel's holds only through "any at all".
 *
 * Output: one line per configuration, then "holds=N forced=N limited=N
 * missed=N failed=N" over all of them. Exit status: 0 if the relay's code left no
 * hold and no error (whether or not the kernel held any back: the last line
 * says), 1 otherwise, 2 on set-up failure.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>

#include "probe.h"
#include "tcp/tcp_rcvwnd.h"

#define HOLD_DROPS		2000	/* drops per configuration */
#define HOLD_WAIT_MAX_MS	3000	/* longest wait for the sender */
#define HOLD_WAITS		2	/* holds timed per configuration */
#define HOLD_READ_MAX		(1 << 20)

/**
 * struct hold_config - one configuration
 * @rcvbuf:	SO_RCVBUF of the receiver, 0 for autotuning
 * @wsize:	sender's write size
 * @step:	bytes per drop
 */
struct hold_config {
	int rcvbuf;
	int wsize;
	int step;
};

static const struct hold_config CONFIGS[] = {
	{ 16384, 500, 512 },	{ 16384, 1000, 1024 },
	{ 32768, 1000, 1024 },	{ 32768, 1000, 4096 },
	{ 65536, 1000, 4096 },	{ 65536, 65536, 4096 },
	{ 65536, 65536, 16384 },
	{ 131072, 65536, 1024 },	{ 131072, 65536, 4096 },
	{ 131072, 65536, 16384 },
	{ 212992, 1000, 1024 },	{ 212992, 1000, 4096 },
	{ 212992, 1000, 16384 },	{ 212992, 65536, 4096 },
	{ 0, 500, 16384 },	{ 0, 1000, 4096 },	{ 0, 65536, 16384 },
};

/**
 * struct hold_run - state of one run of a configuration
 * @s:		sender
 * @r:		receiver
 * @wsize:	sender's write size
 * @peek_off:	the receiver peeks with SO_PEEK_OFF (Linux 6.9 and later)
 * @peeked:	bytes the receiver peeked so far
 * @dropped:	bytes it dropped
 */
struct hold_run {
	int s;
	int r;
	int wsize;
	bool peek_off;
	long long peeked;
	long long dropped;
};

/**
 * now_ms() - monotonic time
 *
 * Return: milliseconds
 */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/**
 * pump() - the sender writes what it can, the receiver peeks what came
 * @h:		run
 */
static void pump(struct hold_run *h)
{
	static char buf[HOLD_READ_MAX];
	bool moved = true;

	while (moved) {
		moved = false;
		while (send(h->s, buf, (size_t)h->wsize, MSG_DONTWAIT) > 0)
			moved = true;
		if (probe_peek_new(h->r, h->peek_off, &h->peeked, h->dropped,
				   buf, sizeof(buf)))
			moved = true;
	}
}

/**
 * sender_blocked() - is the sender held by a window below its segment size
 *		      while the receiver has room for a segment?
 * @h:		run
 *
 * Return: true if so
 */
static bool sender_blocked(const struct hold_run *h)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);
	uint32_t room;

	if (getsockopt(h->s, IPPROTO_TCP, TCP_INFO, &ti, &sl) ||
	    !ti.tcpi_notsent_bytes || !ti.tcpi_snd_wnd ||
	    ti.tcpi_snd_wnd >= ti.tcpi_snd_mss)
		return false;
	if (tcp_rcvwnd_free(h->r, (uint32_t)h->dropped, &room))
		return false;
	return room >= ti.tcpi_snd_mss;
}

/**
 * show_hold() - print both ends of a hold (PROBE_VERBOSE set)
 * @h:		run
 */
static void show_hold(const struct hold_run *h)
{
	struct { struct tcp_info ti; uint32_t rcv_wnd; } r;
	struct tcp_info s;
	socklen_t sl = sizeof(s), rl = sizeof(r);
	uint32_t mem[SK_MEMINFO_VARS], room = 0;
	socklen_t ml = sizeof(mem);

	getsockopt(h->s, IPPROTO_TCP, TCP_INFO, &s, &sl);
	memset(&r, 0, sizeof(r));
	getsockopt(h->r, IPPROTO_TCP, TCP_INFO, &r, &rl);
	getsockopt(h->r, SOL_SOCKET, SO_MEMINFO, mem, &ml);
	int clamp = 0;
	socklen_t cl = sizeof(clamp);

	tcp_rcvwnd_free(h->r, (uint32_t)h->dropped, &room);
	getsockopt(h->r, IPPROTO_TCP, TCP_WINDOW_CLAMP, &clamp, &cl);
	printf("  hold: sender snd_wnd %u snd_mss %u; receiver rcv_wnd %u "
	       "rcv_mss %u advmss %u rcvbuf %u rmem %u queued %lld room %u "
	       "clamp %d rcv_ssthresh %u\n",
	       s.tcpi_snd_wnd, s.tcpi_snd_mss, r.rcv_wnd, r.ti.tcpi_rcv_mss,
	       r.ti.tcpi_advmss, mem[SK_MEMINFO_RCVBUF],
	       mem[SK_MEMINFO_RMEM_ALLOC], h->peeked - h->dropped, room,
	       clamp, r.ti.tcpi_rcv_ssthresh);
}

/**
 * wait_sender() - wait until the sender moves by itself
 * @h:		run
 *
 * Return: milliseconds it took, or -1 if it never did
 */
static long long wait_sender(struct hold_run *h)
{
	long long start = now_ms(), before = h->peeked;

	while (now_ms() - start < HOLD_WAIT_MAX_MS) {
		usleep(1000);
		pump(h);
		if (h->peeked != before)
			return now_ms() - start;
	}
	return -1;
}

/**
 * struct hold_result - what a run of a configuration found
 * @holds:	holds seen
 * @wait_min:	shortest wait of the sender, ms (kernel alone)
 * @wait_max:	longest wait, ms, -1 if it never moved
 * @forced:	holds the relay's code released
 * @limited:	holds it left to the kernel's own limits (rcv_ssthresh,
 *		receiver side silly window avoidance, net.core.rmem_max)
 * @missed:	holds left after the relay's code, by the rule it releases
 * @failed:	errors from the relay's code
 * @last:	the relay's verdict on the last drop
 */
struct hold_result {
	int holds;
	long long wait_min;
	long long wait_max;
	int forced;
	int limited;
	int missed;
	int failed;
	int last;
};

/**
 * drop_step() - drop the next acknowledged bytes, as the relay does
 * @h:		run
 * @step:	bytes
 * @relay:	run the relay's release after the drop
 * @user:	SO_RCVBUF the receiver was given, 0 if autotuned
 * @raised:	the relay's "buffer grown" state
 * @res:	counters to update
 *
 * Return: true if a hold remains for the caller to handle
 */
static bool drop_step(struct hold_run *h, int step, bool relay, int user,
		      bool *raised, struct hold_result *res)
{
	long long inq = h->peeked - h->dropped, before;
	uint32_t free_before = 0;
	ssize_t n;
	int rc;

	if (relay && !tcp_rcvwnd_precise())
		tcp_rcvwnd_free(h->r, (uint32_t)h->dropped, &free_before);
	n = recv(h->r, NULL, (size_t)(inq < step ? inq : step),
		 MSG_TRUNC | MSG_DONTWAIT);
	if (n > 0)
		h->dropped += n;
	if (relay) {
		rc = tcp_rcvwnd_release(h->r, (uint32_t)h->dropped,
					h->peek_off ?
					(int)(h->peeked - h->dropped) : -1,
					user, free_before, raised);
		res->last = rc;
		if (rc == TCP_RCVWND_RELEASED)
			res->forced++;
		else if (rc < 0)
			res->failed++;
		if (*raised && tcp_rcvwnd_restore(h->r, (uint32_t)h->dropped,
						  user, raised))
			res->failed++;
	}
	before = h->peeked;
	pump(h);
	return h->peeked == before && sender_blocked(h);
}

/**
 * run_config() - one run of a configuration
 * @cfg:	configuration
 * @relay:	with the relay's release after every drop
 * @max_holds:	without it, stop at this many holds (0: never)
 * @res:	filled with what was found
 *
 * Return: 0 on success, -1 on set-up failure
 */
static int run_config(const struct hold_config *cfg, bool relay,
		      int max_holds, struct hold_result *res)
{
	struct hold_run h = { .wsize = cfg->wsize };
	int one = 1, i, timed = 0;
	bool raised = false;
	long long w;

	memset(res, 0, sizeof(*res));
	res->wait_min = -1;
	if (probe_pair(&h.s, &h.r, 0, cfg->rcvbuf))
		return -1;
	setsockopt(h.s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	h.peek_off = probe_peek_start(h.r);

	pump(&h);
	for (i = 0; i < HOLD_DROPS && h.peeked > h.dropped; i++) {
		if (!drop_step(&h, cfg->step, relay, cfg->rcvbuf, &raised,
			       res))
			continue;
		res->holds++;
		if (relay && (res->last == TCP_RCVWND_LIMITED ||
			      res->last == TCP_RCVWND_CAPPED)) {
			res->limited++;
			wait_sender(&h);
		} else if (relay) {
			res->missed++;
			if (getenv("PROBE_VERBOSE"))
				show_hold(&h);
		} else if (timed++ < HOLD_WAITS) {
			w = wait_sender(&h);
			if (res->wait_min < 0 || (w >= 0 && w < res->wait_min))
				res->wait_min = w;
			if (w < 0 || w > res->wait_max || res->wait_max < 0)
				res->wait_max = w;
		} else {
			wait_sender(&h);
		}
		if (!relay && max_holds && res->holds >= max_holds)
			break;
	}
	close(h.s);
	close(h.r);
	return 0;
}

/**
 * peek_off_supported() - does SO_PEEK_OFF work on a TCP socket here?
 *
 * Return: true if it does
 */
static bool peek_off_supported(void)
{
	bool ok = false;
	int s, r;

	if (!probe_pair(&s, &r, 0, 0)) {
		ok = probe_peek_start(r);
		close(s);
		close(r);
	}
	return ok;
}

/**
 * main() - run every configuration, kernel alone and with the relay
 * @argc:	argument count
 * @argv:	optional holds of the kernel alone to count per configuration
 *
 * Return: 0 if the relay's code left no hold and had no error, 1
 *	   otherwise, 2 on set-up failure
 */
int main(int argc, char **argv)
{
	int holds = 0, forced = 0, limited = 0, missed = 0, failed = 0;
	int max_holds = 0;
	size_t i;

	if (argc > 1) {
		max_holds = atoi(argv[1]);
		if (max_holds < 1) {
			fprintf(stderr, "usage: %s [HOLDS, at least 1]\n",
				argv[0]);
			return PROBE_SETUP;
		}
		printf("kernel alone: counting up to %d holds per "
		       "configuration\n", max_holds);
	}
	if (tcp_rcvwnd_init())
		return PROBE_SETUP;
	printf("kernel reports the advertised window (tcpi_rcv_wnd): %s\n",
	       tcp_rcvwnd_precise() ? "yes" : "no, the relay infers it");
	printf("SO_PEEK_OFF on TCP: %s\n", peek_off_supported() ?
	       "yes" : "no, the relay peeks from the front");

	for (i = 0; i < sizeof(CONFIGS) / sizeof(CONFIGS[0]); i++) {
		const struct hold_config *cfg = &CONFIGS[i];
		struct hold_result k, r;

		if (run_config(cfg, false, max_holds, &k) ||
		    run_config(cfg, true, 0, &r))
			return PROBE_SETUP;
		printf("rcvbuf %6d%s writes %5d, drops of %5d: kernel alone "
		       "%3d holds%s", cfg->rcvbuf, cfg->rcvbuf ? "" : " (auto)",
		       cfg->wsize, cfg->step, k.holds,
		       max_holds && k.holds >= max_holds ? " (or more)" : "");
		if (k.holds)
			printf(" (the sender moved after %lld-%lld ms)",
			       k.wait_min, k.wait_max);
		printf("; relay: %d released, %d left to the kernel's limits, "
		       "%d missed, %d errors\n", r.forced, r.limited, r.missed,
		       r.failed);
		holds += k.holds;
		forced += r.forced;
		limited += r.limited;
		missed += r.missed;
		failed += r.failed;
	}
	printf("holds=%d forced=%d limited=%d missed=%d failed=%d\n", holds,
	       forced, limited, missed, failed);
	if (failed || (missed && tcp_rcvwnd_precise()) ||
	    (holds && !forced && !limited))
		return PROBE_FAILED;
	return PROBE_OK;
}
