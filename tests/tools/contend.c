// SPDX-License-Identifier: GPL-2.0-or-later
/* contend.c - competing load for the integration tests: a busy host
 *
 * Theory of operation: a relay on a real host shares its CPUs with other
 * work, and that work is not only busy loops. What hides a wake-up or
 * delays a window update is scheduling latency: a runnable task that
 * waits behind others for a CPU. This tool makes it in several shapes,
 * each a group of threads at the caller's own priority (SCHED_OTHER, the
 * nice value it was started with), so that the scheduler treats them as
 * equals of the relay:
 *
 *   spin	one thread per CPU that never sleeps
 *   sleep	CONTEND_SLEEPERS_PER_CPU threads per CPU, each sleeping a
 *		random 100-500 us, then running 10-50 us: many short wake-ups
 *		that preempt whatever runs and make scheduling latency
 *		jittery
 *   burst	one thread per CPU that runs 1-20 ms, then sleeps 1-20 ms: a
 *		task that holds a CPU for milliseconds (a vCPU, a compiler)
 *   herd	CONTEND_HERD_PER_CPU threads per CPU waiting on one condition
 *		variable, all woken every 2 ms, each then running 20-100 us:
 *		many tasks runnable at the same instant
 *   io		one thread writing a file in DIR (1 MiB writes, fsync every
 *		8 MiB), reading it back after dropping it from the page
 *		cache: page-cache churn and the kernel's writeback work
 *   mem	one thread copying through a buffer larger than the caches:
 *		the caches and memory bandwidth the relay's copies rely on
 *   fork	one thread starting short-lived processes (fork, exec of
 *		/bin/true, wait), as a test suite or a build does: new tasks
 *		placed on the CPUs, page tables copied, exits reaped
 *   net	a child process in a network namespace of its own, moving a
 *		bulk TCP stream and a flood of small UDP datagrams over its
 *		loopback: softirq work, which preempts every task, and the
 *		per-CPU backlog queues every namespace's packets share
 *
 *   contend [-s SHAPES] [-n CPUS] [-d DIR] [-t SECONDS]
 *	SHAPES: comma-separated list of the names above, or "all" (the
 *	default). CPUS: how many CPUs to load (default: all online). DIR:
 *	for the io shape (default /var/tmp; the file is unlinked at once, so
 *	nothing is left behind even on SIGKILL). SECONDS: stop after that
 *	long (default: run until SIGTERM or SIGINT).
 *
 * It prints one line on standard error once every thread runs, and on
 * exit one line with the work each shape did (iterations), so a test can
 * show that the load was really there.
 *
 * Exit status: 0, or 1 on a usage or set-up error.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CONTEND_SLEEPERS_PER_CPU	4
#define CONTEND_HERD_PER_CPU		4
#define CONTEND_HERD_PERIOD_US		2000
#define CONTEND_IO_FILE_SIZE		(64UL << 20)
#define CONTEND_IO_CHUNK		(1UL << 20)
#define CONTEND_IO_SYNC_EVERY		(8UL << 20)
#define CONTEND_MEM_SIZE		(64UL << 20)
#define CONTEND_THREADS_MAX		1024
#define CONTEND_NET_PORT		5999
#define CONTEND_NET_CHUNK		(64UL << 10)
#define CONTEND_NET_DGRAM		64

/**
 * enum contend_shape - the shapes of load, see the theory of operation
 */
enum contend_shape {
	SHAPE_SPIN,
	SHAPE_SLEEP,
	SHAPE_BURST,
	SHAPE_HERD,
	SHAPE_IO,
	SHAPE_MEM,
	SHAPE_FORK,
	SHAPE_NET,
	SHAPE_COUNT,
};

static const char *const contend_names[SHAPE_COUNT] = {
	"spin", "sleep", "burst", "herd", "io", "mem", "fork", "net",
};

static atomic_bool contend_stop;
static atomic_ulong contend_work[SHAPE_COUNT];
static const char *contend_dir = "/var/tmp";

static pthread_mutex_t herd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t herd_cond = PTHREAD_COND_INITIALIZER;
static unsigned long herd_gen;

/**
 * now_ns() - monotonic time
 *
 * Return: nanoseconds
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * rand_between() - pseudo-random number in a range, per-thread state
 * @state:	xorshift state, not zero
 * @lo:		lowest value
 * @hi:		highest value
 *
 * Return: a value in [@lo, @hi]
 */
static uint64_t rand_between(uint64_t *state, uint64_t lo, uint64_t hi)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return lo + x % (hi - lo + 1);
}

/**
 * run_for_us() - keep the CPU busy for a while
 * @us:		microseconds
 */
static void run_for_us(uint64_t us)
{
	uint64_t end = now_ns() + us * 1000;
	volatile unsigned long sink = 0;

	while (now_ns() < end)
		sink = sink + 1;
}

/**
 * sleep_us() - sleep for a while
 * @us:		microseconds
 */
static void sleep_us(uint64_t us)
{
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000),
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR &&
	       !atomic_load(&contend_stop))
		;
}

/**
 * shape_spin() - thread: never sleeps
 * @arg:	unused
 *
 * Return: NULL
 */
static void *shape_spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&contend_stop)) {
		run_for_us(1000);
		atomic_fetch_add(&contend_work[SHAPE_SPIN], 1);
	}
	return NULL;
}

/**
 * shape_sleep() - thread: short sleeps, short runs
 * @arg:	seed, cast from an integer
 *
 * Return: NULL
 */
static void *shape_sleep(void *arg)
{
	uint64_t seed = (uintptr_t)arg | 1;

	while (!atomic_load(&contend_stop)) {
		sleep_us(rand_between(&seed, 100, 500));
		run_for_us(rand_between(&seed, 10, 50));
		atomic_fetch_add(&contend_work[SHAPE_SLEEP], 1);
	}
	return NULL;
}

/**
 * shape_burst() - thread: holds a CPU for milliseconds, then sleeps
 * @arg:	seed, cast from an integer
 *
 * Return: NULL
 */
static void *shape_burst(void *arg)
{
	uint64_t seed = (uintptr_t)arg | 1;

	while (!atomic_load(&contend_stop)) {
		run_for_us(rand_between(&seed, 1000, 20000));
		sleep_us(rand_between(&seed, 1000, 20000));
		atomic_fetch_add(&contend_work[SHAPE_BURST], 1);
	}
	return NULL;
}

/**
 * shape_herd_leader() - thread: wakes the whole herd periodically
 * @arg:	unused
 *
 * Return: NULL
 */
static void *shape_herd_leader(void *arg)
{
	(void)arg;
	while (!atomic_load(&contend_stop)) {
		sleep_us(CONTEND_HERD_PERIOD_US);
		pthread_mutex_lock(&herd_lock);
		herd_gen++;
		pthread_cond_broadcast(&herd_cond);
		pthread_mutex_unlock(&herd_lock);
	}
	/* Release the herd for good */
	pthread_mutex_lock(&herd_lock);
	herd_gen++;
	pthread_cond_broadcast(&herd_cond);
	pthread_mutex_unlock(&herd_lock);
	return NULL;
}

/**
 * shape_herd() - thread: waits with the others, runs when woken
 * @arg:	seed, cast from an integer
 *
 * Return: NULL
 */
static void *shape_herd(void *arg)
{
	uint64_t seed = (uintptr_t)arg | 1;
	unsigned long seen = 0;

	while (!atomic_load(&contend_stop)) {
		pthread_mutex_lock(&herd_lock);
		while (herd_gen == seen && !atomic_load(&contend_stop))
			pthread_cond_wait(&herd_cond, &herd_lock);
		seen = herd_gen;
		pthread_mutex_unlock(&herd_lock);
		run_for_us(rand_between(&seed, 20, 100));
		atomic_fetch_add(&contend_work[SHAPE_HERD], 1);
	}
	return NULL;
}

/**
 * io_round() - write the file, sync it, drop it from the cache, read it
 * @fd:		file descriptor, unlinked file
 * @buf:	CONTEND_IO_CHUNK bytes
 *
 * Return: 0 on success, -1 on an I/O error (reported)
 */
static int io_round(int fd, char *buf)
{
	unsigned long off;

	for (off = 0; off < CONTEND_IO_FILE_SIZE; off += CONTEND_IO_CHUNK) {
		if (atomic_load(&contend_stop))
			return 0;
		buf[0] = (char)off;
		if (pwrite(fd, buf, CONTEND_IO_CHUNK, (off_t)off) < 0)
			goto err;
		if (!((off + CONTEND_IO_CHUNK) % CONTEND_IO_SYNC_EVERY) &&
		    fdatasync(fd))
			goto err;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (off = 0; off < CONTEND_IO_FILE_SIZE; off += CONTEND_IO_CHUNK) {
		if (atomic_load(&contend_stop))
			return 0;
		if (pread(fd, buf, CONTEND_IO_CHUNK, (off_t)off) < 0)
			goto err;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
err:
	fprintf(stderr, "contend: io shape: I/O on a file in %s failed: %s\n",
		contend_dir, strerror(errno));
	return -1;
}

/**
 * shape_io() - thread: page-cache and writeback churn
 * @arg:	unused
 *
 * Return: NULL
 */
static void *shape_io(void *arg)
{
	char path[4096];
	char *buf;
	int fd;

	(void)arg;
	snprintf(path, sizeof(path), "%s/contend.XXXXXX", contend_dir);
	fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "contend: io shape: can't create a file in %s:"
			" %s (use -d DIR)\n", contend_dir, strerror(errno));
		return NULL;
	}
	unlink(path);
	buf = malloc(CONTEND_IO_CHUNK);
	if (!buf) {
		close(fd);
		return NULL;
	}
	memset(buf, 0x5a, CONTEND_IO_CHUNK);
	while (!atomic_load(&contend_stop) && !io_round(fd, buf))
		atomic_fetch_add(&contend_work[SHAPE_IO], 1);
	free(buf);
	close(fd);
	return NULL;
}

/**
 * shape_mem() - thread: copies through a buffer larger than the caches
 * @arg:	unused
 *
 * Return: NULL
 */
static void *shape_mem(void *arg)
{
	size_t half = CONTEND_MEM_SIZE / 2;
	char *buf = malloc(CONTEND_MEM_SIZE);

	(void)arg;
	if (!buf)
		return NULL;
	memset(buf, 1, CONTEND_MEM_SIZE);
	while (!atomic_load(&contend_stop)) {
		memcpy(buf + half, buf, half);
		memcpy(buf, buf + half, half);
		atomic_fetch_add(&contend_work[SHAPE_MEM], 1);
	}
	free(buf);
	return NULL;
}

/**
 * shape_fork() - thread: start and reap short-lived processes
 * @arg:	unused
 *
 * Return: NULL
 */
static void *shape_fork(void *arg)
{
	char *const argv[] = { "true", NULL };
	pid_t pid;

	(void)arg;
	while (!atomic_load(&contend_stop)) {
		pid = fork();
		if (pid < 0) {
			sleep_us(1000);
			continue;
		}
		if (!pid) {
			execv("/bin/true", argv);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		atomic_fetch_add(&contend_work[SHAPE_FORK], 1);
	}
	return NULL;
}

/**
 * net_lo_up() - bring up the loopback interface of the current namespace
 *
 * Return: 0 on success, -1 on failure
 */
static int net_lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM, 0), rc = -1;

	if (s < 0)
		return -1;
	if (!ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return rc;
}

/**
 * net_sink() - thread: read whatever a socket receives, count it
 * @arg:	socket, cast from an integer
 *
 * Return: NULL
 */
static void *net_sink(void *arg)
{
	static char buf[CONTEND_NET_CHUNK];
	int s = (int)(intptr_t)arg;

	while (!atomic_load(&contend_stop) &&
	       recv(s, buf, sizeof(buf), 0) > 0)
		atomic_fetch_add(&contend_work[SHAPE_NET], 1);
	return NULL;
}

/**
 * net_udp_flood() - thread: send small datagrams as fast as possible
 * @arg:	connected UDP socket, cast from an integer
 *
 * Return: NULL
 */
static void *net_udp_flood(void *arg)
{
	char dgram[CONTEND_NET_DGRAM] = { 0 };
	int s = (int)(intptr_t)arg;

	while (!atomic_load(&contend_stop))
		send(s, dgram, sizeof(dgram), 0);
	return NULL;
}

/**
 * net_pair() - a connected pair of loopback sockets of a type
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @tx:	sending end, set on return
 * @rx:	receiving end, set on return
 *
 * Return: 0 on success, -1 on failure
 */
static int net_pair(int type, int *tx, int *rx)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(CONTEND_NET_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int l = socket(AF_INET, type, 0);

	*tx = socket(AF_INET, type, 0);
	if (l < 0 || *tx < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	if (type == SOCK_DGRAM) {
		*rx = l;
		return connect(*tx, (struct sockaddr *)&a, sizeof(a));
	}
	if (listen(l, 1) || connect(*tx, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	*rx = accept(l, NULL, NULL);
	close(l);
	return *rx < 0 ? -1 : 0;
}

/**
 * shape_net_child() - the net shape's process: TCP stream, UDP flood
 *
 * Runs in a network namespace of its own until its parent stops it.
 */
static void __attribute__((noreturn)) shape_net_child(void)
{
	static char chunk[CONTEND_NET_CHUNK];
	pthread_t t[3];
	int ts, tr, us, ur;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (unshare(CLONE_NEWNET) || net_lo_up() ||
	    net_pair(SOCK_STREAM, &ts, &tr) ||
	    net_pair(SOCK_DGRAM, &us, &ur)) {
		fprintf(stderr, "contend: net shape: can't set up a private"
			" namespace with loopback sockets: %s (needs root)\n",
			strerror(errno));
		_exit(1);
	}
	pthread_create(&t[0], NULL, net_sink, (void *)(intptr_t)tr);
	pthread_create(&t[1], NULL, net_sink, (void *)(intptr_t)ur);
	pthread_create(&t[2], NULL, net_udp_flood, (void *)(intptr_t)us);
	while (!atomic_load(&contend_stop))
		send(ts, chunk, sizeof(chunk), 0);
	fprintf(stderr, "contend: net shape: %lu reads\n",
		atomic_load(&contend_work[SHAPE_NET]));
	_exit(0);
}

/**
 * start_net() - fork the net shape's process
 *
 * Return: its PID, or -1 on failure (reported)
 */
static pid_t start_net(void)
{
	pid_t pid = fork();

	if (pid < 0)
		fprintf(stderr, "contend: net shape: fork: %s\n",
			strerror(errno));
	else if (!pid)
		shape_net_child();
	return pid;
}

/**
 * parse_shapes() - parse the -s list
 * @list:	comma-separated names, or "all"
 * @on:		set to true for each shape named
 *
 * Return: 0 on success, -1 on an unknown name (reported)
 */
static int parse_shapes(const char *list, bool on[SHAPE_COUNT])
{
	char buf[256], *tok, *save;
	int i;

	if (!strcmp(list, "all")) {
		for (i = 0; i < SHAPE_COUNT; i++)
			on[i] = true;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < SHAPE_COUNT; i++)
			if (!strcmp(tok, contend_names[i]))
				break;
		if (i == SHAPE_COUNT) {
			fprintf(stderr, "contend: unknown shape '%s' (known:"
				" spin sleep burst herd io mem fork net all)\n", tok);
			return -1;
		}
		on[i] = true;
	}
	return 0;
}

/**
 * on_signal() - SIGTERM, SIGINT: stop every thread
 * @sig:	signal number, unused
 */
static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&contend_stop, true);
}

/**
 * usage() - print usage and exit
 * @name:	program name
 */
static void __attribute__((noreturn)) usage(const char *name)
{
	fprintf(stderr, "Usage: %s [-s SHAPES] [-n CPUS] [-d DIR]"
		" [-t SECONDS]\n"
		"  SHAPES: spin,sleep,burst,herd,io,mem,fork,net or all "
		"(default)\n",
		name);
	exit(1);
}

/**
 * threads_for() - how many threads a shape runs
 * @shape:	shape
 * @cpus:	CPUs to load
 *
 * Return: thread count
 */
static int threads_for(enum contend_shape shape, int cpus)
{
	switch (shape) {
	case SHAPE_SPIN:
	case SHAPE_BURST:
		return cpus;
	case SHAPE_SLEEP:
		return cpus * CONTEND_SLEEPERS_PER_CPU;
	case SHAPE_HERD:
		return cpus * CONTEND_HERD_PER_CPU + 1;
	default:
		return 1;
	}
}

/**
 * start_shape() - start the threads of one shape
 * @shape:	shape
 * @count:	threads to start
 * @tids:	thread table
 * @n:		threads in the table so far, updated
 *
 * Return: 0 on success, -1 on failure (reported)
 */
static int start_shape(enum contend_shape shape, int count, pthread_t *tids,
		       int *n)
{
	static void *(*const fn[SHAPE_COUNT])(void *) = {
		shape_spin, shape_sleep, shape_burst, shape_herd, shape_io,
		shape_mem, shape_fork,
	};
	int i, rc;

	for (i = 0; i < count; i++) {
		void *(*f)(void *) = fn[shape];

		if (shape == SHAPE_HERD && i == count - 1)
			f = shape_herd_leader;
		if (*n >= CONTEND_THREADS_MAX) {
			fprintf(stderr, "contend: more than %d threads: use"
				" fewer CPUs (-n)\n", CONTEND_THREADS_MAX);
			return -1;
		}
		rc = pthread_create(&tids[*n], NULL, f,
				    (void *)(uintptr_t)(now_ns() + (uint64_t)*n));
		if (rc) {
			fprintf(stderr, "contend: can't start a thread: %s\n",
				strerror(rc));
			return -1;
		}
		(*n)++;
	}
	return 0;
}

/**
 * main() - parse options, start the shapes, wait for the end
 * @argc:	argument count
 * @argv:	options
 *
 * Return: 0 on success, 1 on a usage or set-up error
 */
int main(int argc, char **argv)
{
	static pthread_t tids[CONTEND_THREADS_MAX];
	bool on[SHAPE_COUNT] = { 0 };
	const char *shapes = "all";
	struct sigaction sa = { .sa_handler = on_signal };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), seconds = 0;
	uint64_t end;
	pid_t net_pid = 0;
	int opt, i, n = 0;

	while ((opt = getopt(argc, argv, "s:n:d:t:h")) != -1) {
		switch (opt) {
		case 's':
			shapes = optarg;
			break;
		case 'n':
			cpus = strtol(optarg, NULL, 10);
			break;
		case 'd':
			contend_dir = optarg;
			break;
		case 't':
			seconds = strtol(optarg, NULL, 10);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc || cpus < 1 || cpus > 64 || seconds < 0 ||
	    parse_shapes(shapes, on))
		usage(argv[0]);

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	if (on[SHAPE_NET] && (net_pid = start_net()) < 0)
		atomic_store(&contend_stop, true);
	for (i = 0; i < SHAPE_NET && !atomic_load(&contend_stop); i++) {
		if (on[i] && start_shape((enum contend_shape)i,
					 threads_for((enum contend_shape)i,
						     (int)cpus), tids, &n)) {
			atomic_store(&contend_stop, true);
			break;
		}
	}
	if (!atomic_load(&contend_stop))
		fprintf(stderr, "contend: %d threads on %ld CPUs, shapes %s\n",
			n, cpus, shapes);

	end = seconds ? now_ns() + (uint64_t)seconds * 1000000000ULL : 0;
	while (!atomic_load(&contend_stop) && (!end || now_ns() < end))
		sleep_us(100000);

	atomic_store(&contend_stop, true);
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	if (net_pid > 0) {
		kill(net_pid, SIGTERM);
		waitpid(net_pid, NULL, 0);
	}

	fprintf(stderr, "contend: work done:");
	for (i = 0; i < SHAPE_NET; i++)
		if (on[i])
			fprintf(stderr, " %s=%lu", contend_names[i],
				atomic_load(&contend_work[i]));
	fprintf(stderr, "\n");
	return n || net_pid > 0 ? 0 : 1;
}
