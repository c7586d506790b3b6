// SPDX-License-Identifier: GPL-2.0-or-later
/* idle_trim.c - give the pages of large buffers back when traffic stops
 *
 * Theory of operation
 *
 * The relay reserves its buffers once, at start-up (frame queues, read
 * buffers, reassembly space): nothing is allocated in the data path. A
 * page of them costs memory only once written, but then stays resident
 * for good, so a relay that moved a burst of traffic an hour ago would
 * keep the memory of that burst. Modules owning such buffers register
 * them here (idle_trim_register()), with a function telling whether the
 * buffer holds data that must survive (queued frames, held segments, a
 * partial frame), or none if it never holds data from one event to the
 * next.
 *
 * The main loop reports every pass that handled an event other than a
 * timer (idle_trim_traffic()): this records the time and arms a timer of
 * the wheel (util/timer.c). When it fires, and no traffic came for
 * IDLE_TRIM_MS, each registered buffer that is not busy is handed back to
 * the kernel with madvise(MADV_DONTNEED): its private anonymous pages are
 * dropped, and the next access finds zeroed pages again, as at start-up.
 * Nothing here touches the buffers' contents. A buffer still busy is
 * tried again IDLE_TRIM_MS later. Once everything is handed back, the
 * timer stays off until traffic comes: an idle relay has no wake-up for
 * this. Memory a module maps and unmaps at run time (the guest's memory
 * of vhost-user) is handed back by a function it registers instead
 * (idle_trim_register_fn()), called at the same time.
 *
 * The hand-back runs from a timer callback, between events, never while
 * a module is working on one of its buffers: the modules' busy functions
 * only need to cover data kept from one event to a later one.
 *
 * Tables are reserved once at start-up too, most with calloc(), and an
 * entry's pages should only become resident once the entry is used. From
 * the heap, calloc() clears what it hands out unless it just got it from
 * the kernel, which writes every page: idle_trim_init() has allocations
 * of IDLE_TRIM_MMAP_MIN bytes or more served by mmap() instead, pages the
 * kernel gives zeroed and untouched; and the heap grows by what is asked
 * only (no M_TOP_PAD), so that its spare top rarely holds such a table.
 * idle_trim_init_end() puts the usual padding back once they are
 * allocated: pasta's worker thread, started later, gets an arena with
 * spare room as before (it can't grow it under the sandbox). The sandbox
 * turns mmap() off for malloc() later (util/syscalls.c), when nothing is
 * allocated any more.
 *
 * Only the page-aligned part of each buffer is handed back (its first and
 * last pages may be shared with other variables).
 */

#include <malloc.h>
#include <unistd.h>
#include <sys/mman.h>

#include "idle_trim.h"
#include "log.h"
#include "syscalls.h"
#include "timer.h"

/* System calls after start-up: handing pages back, nothing else */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL_IF("madvise", "idle buffers' pages back (MADV_DONTNEED)",
			  SYSCALLS_ARG_EQ(2, MADV_DONTNEED)));

/**
 * struct idle_trim_buf - a registered buffer
 * @p:		start, page-aligned
 * @len:	length, a multiple of the page size
 * @busy:	tells if it holds data to keep, NULL if it never does
 */
struct idle_trim_buf {
	void *p;
	size_t len;
	idle_trim_busy_fn busy;
};

static struct idle_trim_buf idle_trim_bufs[IDLE_TRIM_MAX];
static unsigned int idle_trim_n;
static idle_trim_fn idle_trim_fns[IDLE_TRIM_FNS_MAX];
static unsigned int idle_trim_nfns;
static uint64_t idle_trim_last_ms;	/* last pass with traffic */
static bool idle_trim_dirty;		/* traffic since the last hand-back */
static struct wheel_timer idle_trim_timer;
static bool idle_trim_warned;

/**
 * idle_trim_init() - have tables allocated at start-up stay untouched
 *
 * Call before allocating them. A sanitizer's allocator ignores this; its
 * allocations of this size come from fresh mappings anyway.
 */
void idle_trim_init(void)
{
	if (!mallopt(M_MMAP_THRESHOLD, IDLE_TRIM_MMAP_MIN) ||
	    !mallopt(M_TOP_PAD, 0))
		debug("Can't lower the mmap() threshold of malloc()");
}

/**
 * idle_trim_init_end() - tables are allocated: usual heap padding again
 */
void idle_trim_init_end(void)
{
	if (!mallopt(M_TOP_PAD, IDLE_TRIM_TOP_PAD))
		debug("Can't set the heap padding of malloc() back");
}

/**
 * idle_trim_register() - hand a buffer's pages back when traffic stops
 * @p:		buffer, reserved for the life of the process
 * @len:	its length
 * @busy:	tells if it holds data to keep, NULL if it never holds data
 *		from one event to the next
 *
 * A buffer spanning no whole page is ignored, one registered already (the
 * module was set up again) too.
 */
void idle_trim_register(void *p, size_t len, idle_trim_busy_fn busy)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(page - 1);
	unsigned int i;

	if (end <= start)
		return;
	for (i = 0; i < idle_trim_n; i++) {
		if (idle_trim_bufs[i].p == (void *)start)
			return;
	}
	if (idle_trim_n == IDLE_TRIM_MAX) {
		/* A bug: raise IDLE_TRIM_MAX. The buffer just stays resident */
		warn("Too many idle buffers, %zu bytes stay resident", len);
		return;
	}

	idle_trim_bufs[idle_trim_n].p = (void *)start;
	idle_trim_bufs[idle_trim_n].len = end - start;
	idle_trim_bufs[idle_trim_n].busy = busy;
	idle_trim_n++;
}

/**
 * idle_trim_register_fn() - call a function to hand memory back when idle
 * @fn:		function, called once no traffic came for IDLE_TRIM_MS
 */
void idle_trim_register_fn(idle_trim_fn fn)
{
	unsigned int i;

	for (i = 0; i < idle_trim_nfns; i++) {
		if (idle_trim_fns[i] == fn)
			return;
	}
	if (idle_trim_nfns == IDLE_TRIM_FNS_MAX) {
		warn("Too many idle hand-back functions, one is left out");
		return;
	}
	idle_trim_fns[idle_trim_nfns++] = fn;
}

/**
 * idle_trim_run() - hand back every registered buffer not busy now
 *
 * Return: number of buffers left alone because they are busy
 */
static unsigned int idle_trim_run(void)
{
	unsigned int i, busy = 0;

	debug("No traffic for %i ms: giving idle buffers back", IDLE_TRIM_MS);
	for (i = 0; i < idle_trim_n; i++) {
		const struct idle_trim_buf *b = &idle_trim_bufs[i];

		if (b->busy && b->busy()) {
			busy++;
			continue;
		}
		if (madvise(b->p, b->len, MADV_DONTNEED) && !idle_trim_warned) {
			warn_perror("Can't give idle buffer memory back");
			idle_trim_warned = true;
		}
	}
	for (i = 0; i < idle_trim_nfns; i++)
		idle_trim_fns[i]();
	return busy;
}

/**
 * idle_trim_now() - hand back every registered buffer not busy now
 */
void idle_trim_now(void)
{
	idle_trim_run();
}

/**
 * idle_trim_timer_fn() - no traffic for a while? Hand the buffers back
 * @c:		execution context (unused)
 * @t:		the timer
 * @now_ms:	current time
 */
static void idle_trim_timer_fn(const struct ctx *c, struct wheel_timer *t,
			       uint64_t now_ms)
{
	(void)c;

	if (now_ms - idle_trim_last_ms < IDLE_TRIM_MS) {
		timer_arm(t, idle_trim_last_ms + IDLE_TRIM_MS);
		return;
	}

	if (idle_trim_run())
		timer_arm(t, now_ms + IDLE_TRIM_MS);	/* some were busy */
	else
		idle_trim_dirty = false;
}

/**
 * idle_trim_traffic() - the main loop handled something other than timers
 * @now_ms:	current time
 */
void idle_trim_traffic(uint64_t now_ms)
{
	idle_trim_last_ms = now_ms;
	if (idle_trim_dirty || (!idle_trim_n && !idle_trim_nfns))
		return;

	idle_trim_dirty = true;
	if (!idle_trim_timer.fn)
		timer_init(&idle_trim_timer, idle_trim_timer_fn);
	if (!timer_armed(&idle_trim_timer))
		timer_arm(&idle_trim_timer, now_ms + IDLE_TRIM_MS);
}

/**
 * idle_trim_count() - number of registered buffers
 *
 * Return: the count
 */
unsigned int idle_trim_count(void)
{
	return idle_trim_n;
}
