// SPDX-License-Identifier: GPL-2.0-or-later
/* ns_worker.c - run functions inside pasta's target network namespace
 *
 * Theory of operation
 *
 * setns(CLONE_NEWNET) changes the namespace of the calling thread only:
 * a thread of ours that entered the target namespace shares our memory
 * and descriptors, and sockets or devices it opens stay bound to the
 * namespace. ns_run() hands such a thread a function and waits until it
 * ran.
 *
 * A thread per call is costly: creating, entering and joining one takes
 * 30 us on an idle machine, and milliseconds on a busy one, where the new
 * thread waits for a CPU. So ns_worker_start() leaves one thread inside
 * the namespace, and ns_run() passes it the function under a mutex and
 * waits on a condition variable, which costs two context switches. The
 * worker blocks every signal, so that they all reach the main thread.
 *
 * pasta starts it twice. At start-up, once the namespace is known, for
 * the set-up calls (tap device, addresses, listening sockets, "auto"
 * tables); ns_worker_stop() joins it before the sandbox's unshare(), which
 * needs a single-threaded process. Then for good, once start-up is over
 * (after going to the background, as threads don't survive fork()), and
 * before dropping privileges: at run time, sockets still have to be
 * created in the namespace (ports found by "auto" forwarding, spliced
 * connections from the host's loopback). Without a worker, as before
 * pasta_open_ns() is done (checking that a thread may enter at all), each
 * call gets a new thread.
 *
 * The namespace is whatever isolation/pasta.c opened (ns_target_set());
 * this module needs no configuration, so every layer above util/ may use
 * it.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <linux/futex.h>

#include "log.h"
#include "ns_worker.h"
#include "syscalls.h"

/* futex() operation @op_, private or not, with either clock */
#define NS_WORKER_FUTEX(op_, why_)					\
	SYSCALLS_CALL_IF("futex", why_,					\
			 SYSCALLS_ARG_MASK(1, ~(scmp_datum_t)		\
					   (FUTEX_PRIVATE_FLAG |	\
					    FUTEX_CLOCK_REALTIME), op_))

/* System calls after start-up: hand-off to the worker: glibc's mutex and
 * condition variable wait and wake, no other futex operation
 */
SYSCALLS(SYSCALLS_PASTA,
	 NS_WORKER_FUTEX(FUTEX_WAIT, "wait for the worker's mutex"),
	 NS_WORKER_FUTEX(FUTEX_WAKE, "wake a mutex or condition waiter"),
	 NS_WORKER_FUTEX(FUTEX_WAIT_BITSET, "wait on the condition variable"),
	 NS_WORKER_FUTEX(FUTEX_WAKE_BITSET, "wake a condition waiter"),
	 SYSCALLS_CALL("getpid", "ns_call(): is the worker this process's?"));

/* Descriptor of the target network namespace, -1 if none */
static int ns_target = -1;

/* Thread left in the namespace for run-time calls, see ns_call() */
static pthread_t ns_worker;
static pid_t ns_worker_pid;		/* process it runs in, 0 if none */
static pthread_mutex_t ns_worker_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ns_worker_cond = PTHREAD_COND_INITIALIZER;
static struct ns_call *ns_worker_req;	/* call to run, or NULL */

/**
 * struct ns_call - a function to run in the target namespace
 * @fn:		the function
 * @arg:	its argument
 * @ret:	its return value, or negative errno from setns()
 * @setns_err:	errno from setns(), 0 if we entered the namespace
 * @stop:	the worker exits instead (ns_worker_stop())
 */
struct ns_call {
	int (*fn)(void *arg);
	void *arg;
	int ret;
	int setns_err;
	bool stop;
};

/**
 * ns_thread() - enter the target network namespace, call a function
 * @arg:	struct ns_call
 *
 * Return: NULL
 */
static void *ns_thread(void *arg)
{
	struct ns_call *call = arg;

	if (setns(ns_target, CLONE_NEWNET)) {
		call->setns_err = errno;
		call->ret = -errno;
		return NULL;
	}

	call->ret = call->fn ? call->fn(call->arg) : 0;
	return NULL;
}

/**
 * ns_worker_main() - the thread left in the namespace: run calls
 * @arg:	struct ns_call of the start-up call (no function)
 *
 * Return: NULL, only if setns() failed
 */
static void *ns_worker_main(void *arg)
{
	struct ns_call *call = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);

	ns_thread(call);

	pthread_mutex_lock(&ns_worker_lock);
	ns_worker_req = NULL;
	pthread_cond_broadcast(&ns_worker_cond);
	if (call->setns_err) {
		pthread_mutex_unlock(&ns_worker_lock);
		return NULL;
	}

	for (;;) {
		while (!ns_worker_req)
			pthread_cond_wait(&ns_worker_cond,
					  &ns_worker_lock);

		call = ns_worker_req;
		if (!call->stop)
			call->ret = call->fn ? call->fn(call->arg) : 0;
		ns_worker_req = NULL;
		pthread_cond_broadcast(&ns_worker_cond);
		if (call->stop) {
			pthread_mutex_unlock(&ns_worker_lock);
			return NULL;
		}
	}
}

/**
 * ns_worker_call() - run a function in the worker thread, wait for it
 * @call:	function and argument; return value set here
 *
 * Return: the function's return value
 */
static int ns_worker_call(struct ns_call *call)
{
	pthread_mutex_lock(&ns_worker_lock);
	ns_worker_req = call;
	pthread_cond_broadcast(&ns_worker_cond);
	while (ns_worker_req)
		pthread_cond_wait(&ns_worker_cond, &ns_worker_lock);
	pthread_mutex_unlock(&ns_worker_lock);

	return call->ret;
}

/**
 * ns_worker_start() - leave a thread in the namespace
 *
 * Call once the namespace is set (ns_target_set()), for the calls of
 * start-up, and again after going to the background (fork() doesn't copy
 * threads) and before dropping privileges (setns() needs them), for run
 * time. Without the worker, ns_run() starts a thread per call.
 *
 * Return: 0 on success, negative errno (logged) on failure
 */
int ns_worker_start(void)
{
	struct ns_call call = { 0 };
	int ret;

	if (ns_target < 0 || ns_worker_pid == getpid())
		return 0;

	pthread_mutex_lock(&ns_worker_lock);
	ns_worker_req = &call;
	ret = pthread_create(&ns_worker, NULL, ns_worker_main, &call);
	if (ret) {
		ns_worker_req = NULL;
		pthread_mutex_unlock(&ns_worker_lock);
		err("can't start a thread in the namespace: %s",
		    strerror(ret));
		return -ret;
	}
	while (ns_worker_req)
		pthread_cond_wait(&ns_worker_cond, &ns_worker_lock);
	pthread_mutex_unlock(&ns_worker_lock);

	if (call.setns_err) {
		pthread_join(ns_worker, NULL);
		err("can't enter the target network namespace: %s",
		    strerror(call.setns_err));
		return -call.setns_err;
	}

	ns_worker_pid = getpid();
	return 0;
}

/**
 * ns_worker_stop() - end the worker thread, if this process has one
 *
 * For a step that needs a single-threaded process (unshare() of the
 * sandbox). The kernel may release the thread's file system information
 * a moment after pthread_join() returns: unshare(CLONE_NEWNS) retries
 * (isolation/sandbox.c).
 */
void ns_worker_stop(void)
{
	struct ns_call call = { .stop = true };

	if (!ns_worker_pid || ns_worker_pid != getpid())
		return;

	ns_worker_call(&call);
	pthread_join(ns_worker, NULL);
	ns_worker_pid = 0;
}

/**
 * ns_call() - run a function in a thread inside the target namespace
 * @call:	function, argument; return value and setns() error set here
 *
 * The worker thread runs it if there is one in this process, otherwise a
 * new thread.
 *
 * Return: the function's return value, or negative errno
 */
static int ns_call(struct ns_call *call)
{
	pthread_t t;
	int ret;

	if (ns_target < 0)
		return -EBADF;

	if (ns_worker_pid && ns_worker_pid == getpid())
		return ns_worker_call(call);

	ret = pthread_create(&t, NULL, ns_thread, call);
	if (ret) {
		err("can't start a thread to enter the namespace: %s",
		    strerror(ret));
		return -ret;
	}
	pthread_join(t, NULL);

	return call->ret;
}

/**
 * ns_run() - run a function inside the target network namespace
 * @fn:		function, returning 0 or a negative errno
 * @arg:	its argument
 *
 * The function runs in a thread of ours that entered the namespace: it
 * shares our memory and descriptors, and sockets or devices it opens stay
 * in the namespace. The calling thread waits meanwhile. At run time, the
 * thread is the worker left there by ns_worker_start().
 *
 * Return: return value of @fn, or negative errno if we couldn't enter the
 *	   namespace (logged)
 */
int ns_run(int (*fn)(void *arg), void *arg)
{
	struct ns_call call = { .fn = fn, .arg = arg };
	int ret;

	ret = ns_call(&call);
	if (call.setns_err)
		err("can't enter the target network namespace: %s",
		    strerror(call.setns_err));

	return ret;
}

/**
 * ns_target_set() - set the namespace functions run in
 * @fd:		namespace descriptor, now owned here (a previous one is closed)
 */
void ns_target_set(int fd)
{
	if (ns_target >= 0)
		close(ns_target);
	ns_target = fd;
}

/**
 * ns_target_fd() - descriptor of the target network namespace
 *
 * Return: descriptor, -1 before ns_target_set()
 */
int ns_target_fd(void)
{
	return ns_target;
}

/**
 * ns_enter_check() - check that a thread of ours may enter the namespace
 *
 * Return: 0 if it may, negative errno from setns() otherwise
 */
int ns_enter_check(void)
{
	struct ns_call call = { 0 };

	return ns_call(&call);
}
