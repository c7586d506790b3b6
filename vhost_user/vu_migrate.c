// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_migrate.c - vhost-user requests for live migration
 *
 * Theory of operation
 *
 * QEMU migrates a guest in two phases, and this back-end takes part in
 * both (vhost-user specification, "Migration"):
 *
 * - While the guest still runs, QEMU copies its memory to the target and
 *   copies again what changed. Our writes to guest memory (receive
 *   buffers, used rings) must be marked in QEMU's dirty page log: it sets
 *   VHOST_F_LOG_ALL with SET_FEATURES and shares the log with SET_LOG_BASE
 *   (protocol feature LOG_SHMFD); vu_virtq.c marks the pages of each
 *   write (struct vu_log), and the front-end's optional SET_LOG_FD
 *   eventfd is signalled after a batch that marked some. The bit going
 *   on or off in SET_FEATURES tells migrate/ (tap_state_ops.precopy)
 *   that a migration began, or is over without a save.
 *
 * - Then the guest stops, our queues stop (GET_VRING_BASE: the device is
 *   "suspended"), and QEMU asks for our own state with
 *   SET_DEVICE_STATE_FD (protocol feature DEVICE_STATE), passing one end
 *   of a pipe: on the source we write the state into it and close it
 *   (direction "save"), on the target we read it to its end ("load").
 *   We answer the request first (bit 8: we keep QEMU's channel), then
 *   move the state, blocking: QEMU reads or writes the other end after
 *   our answer. CHECK_DEVICE_STATE then tells QEMU whether it went well.
 *   What the state is, and how it is read and written, is migrate/'s
 *   business (struct tap_state_ops, registered with tap/ at start-up).
 *
 * After the transfer, the device's next step says how the migration
 * ended (vu_mig_running(), vu_mig_closed()): a source whose queues run
 * again resumes the guest here (the migration failed), a source whose
 * front-end leaves hands it over for good; a target whose queues run puts
 * the state it loaded in force, a target whose front-end leaves before
 * that forgets it.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../tap/tap.h"
#include "../tap/tap_backend.h"
#include "vu_dev.h"
#include "vu_msg.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/timer.h"

/* Largest dirty page log: one bit per 4 KiB page covers 2 TiB of guest
 * memory
 */
#define VU_LOG_SIZE_MAX		(64ULL << 20)

/* SET_DEVICE_STATE_FD reply: success, and no descriptor of ours */
#define VU_STATE_FD_NONE	(1ULL << 8)

/**
 * vu_mig_log_update() - point the queues at the log, or not
 * @dev:	device
 *
 * Writes are logged while VHOST_F_LOG_ALL is negotiated and a log is
 * shared; the used ring too if the front-end asked for it.
 */
void vu_mig_log_update(struct vu_dev *dev)
{
	bool on = (dev->features & VU_BIT(VU_F_LOG_ALL)) && dev->log.map;
	unsigned int qi;

	for (qi = 0; qi < VU_QUEUES; qi++) {
		struct vu_queue *q = &dev->q[qi];

		q->vq.log = on ? &dev->log : NULL;
		q->vq.log_used = q->log_used;
		q->vq.used_log = q->log_gpa;
	}
}

/**
 * vu_mig_precopy() - tell migrate/ that a migration began, or is over
 * @c:		execution context
 * @on:		it began
 */
static void vu_mig_precopy(const struct ctx *c, bool on)
{
	const struct tap_state_ops *ops = tap_state_ops_get();

	if (ops && ops->precopy)
		ops->precopy(c, on);
}

/**
 * vu_mig_log_changed() - SET_FEATURES set or cleared VHOST_F_LOG_ALL: a
 *			  migration began, or it is over without a save
 * @c:		execution context
 * @dev:	device, its new features in force
 * @was:	VHOST_F_LOG_ALL was set before
 */
void vu_mig_log_changed(const struct ctx *c, const struct vu_dev *dev,
			bool was)
{
	bool on = dev->features & VU_BIT(VU_F_LOG_ALL);

	if (on == was)
		return;
	if (on)
		info("vhost-user: the front-end logs our writes to guest "
		     "memory: a migration began");
	else
		info("vhost-user: the front-end no longer logs our writes");
	vu_mig_precopy(c, on);
}

/**
 * vu_mig_log_kick() - tell the front-end pages were marked, if it asked
 * @dev:	device
 */
void vu_mig_log_kick(struct vu_dev *dev)
{
	if (!dev->log.dirty)
		return;
	dev->log.dirty = false;
	if (dev->log_fd >= 0)
		vu_eventfd_signal(dev, dev->log_fd, "log eventfd");
}

/**
 * vu_mig_log_unmap() - forget the dirty page log
 * @dev:	device
 */
static void vu_mig_log_unmap(struct vu_dev *dev)
{
	if (dev->log_base)
		munmap(dev->log_base, dev->log_len);
	if (dev->log.missed)
		warn("vhost-user: %llu writes to guest memory were beyond the "
		     "dirty page log", (unsigned long long)dev->log.missed);
	dev->log_base = NULL;
	dev->log_len = 0;
	memset(&dev->log, 0, sizeof(dev->log));
	vu_mig_log_update(dev);
}

/**
 * vu_mig_clear() - the migration state of a new or closed connection
 * @dev:	device
 */
void vu_mig_clear(struct vu_dev *dev)
{
	vu_mig_log_unmap(dev);
	if (dev->log_fd >= 0)
		close(dev->log_fd);
	dev->log_fd = -1;
	dev->state_result = -ENODATA;
	dev->saved = dev->loaded = false;
	dev->exit_at = 0;
}

/**
 * vu_mig_set_log_base() - SET_LOG_BASE: share the dirty page log
 * @c:		execution context (unused)
 * @dev:	device
 * @m:		request: size and offset of the log, its descriptor
 *
 * The front-end waits for a reply (LOG_SHMFD): 0, or 1 if the log can't
 * be used (and we log nothing).
 *
 * Return: VU_REPLIED, VU_BAD on socket failure
 */
enum vu_res vu_mig_set_log_base(const struct ctx *c, struct vu_dev *dev,
				struct vu_msg *m)
{
	uint64_t size = m->p.log.size, off = m->p.log.offset, skew;
	int fd = vu_msg_take_fd(m);
	struct stat st;
	void *p;

	(void)c;
	vu_mig_log_unmap(dev);

	skew = off % (uint64_t)sysconf(_SC_PAGESIZE);
	if (!size || size > VU_LOG_SIZE_MAX || off > UINT64_MAX - size ||
	    fstatat(fd, "", &st, AT_EMPTY_PATH) ||
	    (uint64_t)st.st_size < off + size) {
		err("vhost-user: unusable dirty page log (%llu bytes at offset "
		    "%llu, at most %llu, within its file): memory we write "
		    "won't be copied again by the migration",
		    (unsigned long long)size, (unsigned long long)off,
		    (unsigned long long)VU_LOG_SIZE_MAX);
		close(fd);
		return vu_msg_reply_u64(dev, m, 1);
	}

	p = mmap(NULL, size + skew, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)(off - skew));
	close(fd);
	if (p == MAP_FAILED) {
		err_perror("vhost-user: can't map the dirty page log");
		return vu_msg_reply_u64(dev, m, 1);
	}

	dev->log_base = p;
	dev->log_len = size + skew;
	dev->log.map = (uint8_t *)p + skew;
	dev->log.size = size;
	vu_mig_log_update(dev);
	info("vhost-user: dirty page log of %llu bytes shared, logging %s",
	     (unsigned long long)size,
	     (dev->features & VU_BIT(VU_F_LOG_ALL)) ? "on" : "off for now");
	return vu_msg_reply_u64(dev, m, 0);
}

/**
 * vu_mig_set_log_fd() - SET_LOG_FD: eventfd to signal after logging
 * @c:		execution context (unused)
 * @dev:	device
 * @m:		request, with the eventfd
 *
 * Return: VU_OK, VU_FAIL if it is no eventfd (vu_msg_take_eventfd())
 */
enum vu_res vu_mig_set_log_fd(const struct ctx *c, struct vu_dev *dev,
			      struct vu_msg *m)
{
	int fd = vu_msg_take_eventfd(m, "log eventfd");

	(void)c;
	if (fd < 0)
		return VU_FAIL;
	if (dev->log_fd >= 0)
		close(dev->log_fd);
	dev->log_fd = fd;
	return VU_OK;
}

/**
 * vu_mig_suspended() - are all queues stopped, as a transfer needs?
 * @dev:	device
 *
 * Return: true if no queue is started
 */
static bool vu_mig_suspended(const struct vu_dev *dev)
{
	unsigned int qi;

	for (qi = 0; qi < VU_QUEUES; qi++) {
		if (dev->q[qi].vq.started)
			return false;
	}
	return true;
}

/**
 * vu_mig_set_state_fd() - SET_DEVICE_STATE_FD: save or load our state
 * @c:		execution context
 * @dev:	device
 * @m:		request: direction and phase, the front-end's end of the
 *		channel
 *
 * Return: VU_REPLIED, VU_BAD on socket failure
 */
enum vu_res vu_mig_set_state_fd(const struct ctx *c, struct vu_dev *dev,
				struct vu_msg *m)
{
	uint32_t dir = m->p.transfer.direction, phase = m->p.transfer.phase;
	const struct tap_state_ops *ops = tap_state_ops_get();
	int fd = vu_msg_take_fd(m), ret;
	const char *why = NULL;

	if (!ops)
		why = "this back-end can't migrate";
	else if (phase != VU_TRANSFER_STOPPED)
		why = "only the stopped phase is supported";
	else if (dir != VU_TRANSFER_SAVE && dir != VU_TRANSFER_LOAD)
		why = "unknown direction";
	else if (!vu_mig_suspended(dev))
		why = "queues are still running (not suspended)";

	/* A transfer before the last one ended (no queue ran, the front-end
	 * stayed): that one is over
	 */
	if (ops && dev->saved)
		ops->resume(c);
	else if (ops && dev->loaded)
		ops->discard(c);
	dev->saved = dev->loaded = false;

	if (why) {
		err("vhost-user: device state transfer (direction %u, phase %u)"
		    " refused: %s", dir, phase, why);
		close(fd);
		dev->state_result = -EINVAL;
		return vu_msg_reply_u64(dev, m, VU_STATE_FD_NONE | 1);
	}

	/* The front-end moves the data only once it has our answer */
	if (vu_msg_reply_u64(dev, m, VU_STATE_FD_NONE) == VU_BAD) {
		close(fd);
		return VU_BAD;
	}

	if (dir == VU_TRANSFER_SAVE)
		ret = ops->save(c, fd);
	else
		ret = ops->load(c, fd);
	close(fd);

	dev->state_result = ret;
	if (!ret && dir == VU_TRANSFER_SAVE)
		dev->saved = true;
	else if (!ret)
		dev->loaded = true;
	return VU_REPLIED;
}

/**
 * vu_mig_check_state() - CHECK_DEVICE_STATE: did the transfer work?
 * @c:		execution context
 * @dev:	device
 * @m:		request
 *
 * With --migrate-exit, a source whose state was saved exits once the
 * front-end leaves (QEMU quits the source once the migration completed),
 * or VU_MIG_EXIT_LINGER_MS from now, whichever comes first, not at once
 * as upstream passt does: a target on this host may not have taken the
 * connections' addresses yet, and until it has, the source keeps them
 * silent (tcp_mig_let_go()); without us, a segment from a peer would
 * get a reset from the kernel. The guest's state is with the front-end
 * already: nothing else waits for us.
 *
 * Return: VU_REPLIED, VU_BAD on socket failure
 */
enum vu_res vu_mig_check_state(const struct ctx *c, struct vu_dev *dev,
			       struct vu_msg *m)
{
	enum vu_res res = vu_msg_reply_u64(dev, m, dev->state_result ? 1 : 0);

	if (res == VU_REPLIED && dev->saved && c->migrate_exit) {
		dev->exit_at = timer_now_ms() + VU_MIG_EXIT_LINGER_MS;
		info("Migration complete: exiting once the front-end leaves, "
		     "%u ms from now at most (--migrate-exit)",
		     VU_MIG_EXIT_LINGER_MS);
	}
	return res;
}

/**
 * vu_mig_running() - a queue is started and enabled: end a migration
 *		      step that was waiting for it
 * @c:		execution context
 * @dev:	device
 */
void vu_mig_running(const struct ctx *c, struct vu_dev *dev)
{
	if (dev->saved) {
		dev->saved = false;
		dev->exit_at = 0;
		warn("vhost-user: the device runs again after its state was "
		     "saved: the migration failed, the guest goes on here");
		tap_state_ops_get()->resume(c);
	} else if (dev->loaded) {
		dev->loaded = false;
		tap_state_ops_get()->start(c);
	}
}

/**
 * vu_mig_closed() - the front-end left: end a migration that was waiting
 * @c:		execution context
 * @dev:	device, still connected
 *
 * Return: true if the guest migrated away from here
 */
bool vu_mig_closed(const struct ctx *c, struct vu_dev *dev)
{
	const struct tap_state_ops *ops = tap_state_ops_get();
	bool away = dev->saved;

	if (!ops) {	/* nothing registered: no migration */
		vu_mig_clear(dev);
		return false;
	}
	if (dev->features & VU_BIT(VU_F_LOG_ALL))
		vu_mig_precopy(c, false);
	if (dev->saved)
		ops->finish(c);
	else if (dev->loaded)
		ops->discard(c);
	vu_mig_clear(dev);
	return away;
}
