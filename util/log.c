// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - logging to stderr, syslog or a size-limited file
 *
 * Theory of operation: one process-wide logger with three sinks.
 *
 * - stderr, on from the start until log_to_stderr(false): the bare message,
 *   prefixed by the time since log_init() ("12.345678: ") when the level
 *   is debug or trace and there is no log file (the file has the times; as
 *   upstream, stderr then gets the bare messages).
 * - a log file (log_open_file(), -l), emptied when opened. Its first line
 *   is a header naming the program, its version, the binary and the PID
 *   ("pasta 0.1: /usr/bin/passt (1234)", as upstream's), so that a reader
 *   knows which run wrote it; log_set_pid() rewrites it in a process
 *   that went to the background, with the PID the host knows it by (in
 *   its own PID namespace, getpid() says 1), which syslog lines name too.
 *   The file is opened by outfile_open(): a symbolic link at the path is
 *   refused, not followed. Every other line carries a UTC wall-clock
 *   timestamp and the level name. Lines are appended (O_APPEND, so that a
 *   parent and a child sharing the descriptor do not overwrite each other).
 *   When a line would make the file grow past its maximum size, the oldest
 *   half of the file is dropped: the newest part, starting at a line
 *   boundary, is moved to the start of the file behind the header, which
 *   then says when ("HEADER - log truncated at TIME"), and the file is cut
 *   after it. If moving fails, the file is emptied and gets only the header
 *   line. This needs fcntl(), lseek(), read() and ftruncate() (the seccomp
 *   filter must allow them when -l is given): lseek() also tells the size
 *   of the file, and one call, instead of pread(), pwrite() and fstat(),
 *   keeps the filter short.
 * - syslog, after log_to_syslog(), unless a log file is open: datagrams in
 *   the format syslog(3) uses ("<PRI>ident[pid]: message", facility
 *   LOG_DAEMON) sent to /dev/log on a socket connected by log_to_syslog()
 *   itself. syslog(3) is not used because it allocates memory for every
 *   message and may reconnect, which the sandbox forbids; call
 *   log_to_syslog() before the file system view is restricted. If the
 *   syslog daemon goes away, messages are dropped.
 *
 * Rate limits (log_rl_msg(), through the err_rl() family of log.h): a
 * token bucket of LOG_RL_BURST messages per call site, one token back
 * every LOG_RL_INTERVAL_MS, kept as one timestamp (when the bucket will
 * be full again) and a count of the messages held back, so that a zeroed
 * static is a full bucket. Over any span of E ms from the first message,
 * a call site logs at most LOG_RL_BURST + E / LOG_RL_INTERVAL_MS lines.
 * The count goes at the end of the next line logged, and the line that
 * empties the bucket says that more will be limited: no extra lines. The
 * level is checked first, so that messages nobody would see use no
 * tokens.
 *
 * Every line is formatted into a buffer on the stack and leaves with one
 * system call per sink (no stdio buffering, so nothing is duplicated or
 * lost across fork()). Messages longer than LOG_MSG_MAX are cut. The logger
 * works before log_init() (level info, stderr on) and keeps errno intact.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "log.h"
#include "outfile.h"
#include "util.h"
#include "syscalls.h"

/* System calls after start-up: lines to stderr, the log file or syslog */
SYSCALLS(SYSCALLS_RELAY | SYSCALLS_PESTO,
	 SYSCALLS_CALL("write", "a line to stderr or to the log file"),
	 SYSCALLS_CALL("clock_gettime", "timestamps, if the vDSO can't"));
/* The relay only: the log file's rotation, syslog */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("sendto", "a line to syslog (send())"),
	 SYSCALLS_CALL("lseek", "log file rotation: its size, moving lines"),
	 SYSCALLS_CALL("read", "log file rotation: the lines kept"),
	 SYSCALLS_CALL("ftruncate", "log file rotation: cut after the lines"),
	 SYSCALLS_CALL_IF("fcntl", "log file rotation: append mode off, on",
			  SYSCALLS_ARG_EQ(1, F_GETFL)),
	 SYSCALLS_CALL_IF("fcntl", "log file rotation: append mode off, on",
			  SYSCALLS_ARG_EQ(1, F_SETFL)));

#define LOG_MSG_MAX		1024	/* message text, without prefixes */
#define LOG_PREFIX_MAX		128	/* timestamp, level, ident, pid */
#define LOG_LINE_MAX		(LOG_MSG_MAX + LOG_PREFIX_MAX)
#define LOG_IDENT_MAX		32
#define LOG_SYSLOG_PATH		"/dev/log"
#define LOG_ROTATE_MIN		(8 * LOG_LINE_MAX) /* smaller: just empty it */
#define LOG_COPY_CHUNK		4096
#define LOG_HEADER_MAX		256	/* header line, no newline */
#define LOG_VERSION_MAX		32

static char log_ident[LOG_IDENT_MAX] = "passt";
static int log_level = LOG_INFO;
static bool log_stderr_on = true;
static bool log_syslog_on;
static int log_sock = -1;
static pid_t log_pid;		/* for syslog: getpid() is not allowed later */
static int log_fd = -1;
static size_t log_max;
static size_t log_len;
static struct timespec log_start;
static bool log_start_set;
static char log_header[LOG_HEADER_MAX];	/* first line of the log file */
static size_t log_header_len;
static char log_version[LOG_VERSION_MAX];
static char log_exe[LOG_HEADER_MAX];	/* our binary, for the header */

static const char *const log_level_names[] = {
	[LOG_EMERG]	= "emergency",
	[LOG_ALERT]	= "alert",
	[LOG_CRIT]	= "critical",
	[LOG_ERR]	= "error",
	[LOG_WARNING]	= "warning",
	[LOG_NOTICE]	= "notice",
	[LOG_INFO]	= "info",
	[LOG_DEBUG]	= "debug",
	[LOG_TRACE]	= "trace",
};

/**
 * log_clamp_prio() - bring a priority into the range the logger knows
 * @prio:	priority, LOG_EMERG to LOG_TRACE
 *
 * Return: @prio, clamped
 */
static int log_clamp_prio(int prio)
{
	if (prio < LOG_EMERG)
		return LOG_EMERG;
	if (prio > LOG_TRACE)
		return LOG_TRACE;
	return prio;
}

/**
 * log_start_time() - remember the reference for relative timestamps
 */
static void log_start_time(void)
{
	if (!log_start_set && !clock_gettime(CLOCK_MONOTONIC, &log_start))
		log_start_set = true;
}

/**
 * log_init() - set the program name used in messages, start the clock
 * @ident:	program name (for syslog and the log file), NULL to keep
 */
void log_init(const char *ident)
{
	if (ident && *ident) {
		const char *slash = strrchr(ident, '/');

		if (slash && slash[1])
			ident = slash + 1;
		snprintf(log_ident, sizeof(log_ident), "%s", ident);
	}
	log_start_set = false;
	log_start_time();
}

/**
 * log_set_level() - set the least important priority still logged
 * @level:	LOG_ERR, LOG_WARNING (-q), LOG_INFO (default), LOG_DEBUG
 *		(-d) or LOG_TRACE (--trace); out-of-range values are clamped
 */
void log_set_level(int level)
{
	log_level = log_clamp_prio(level);
}

/**
 * log_get_level() - the least important priority still logged
 *
 * Return: the level set with log_set_level(), LOG_INFO by default
 */
int log_get_level(void)
{
	return log_level;
}

/**
 * log_to_stderr() - start or stop writing messages to stderr
 * @on:		true to write to stderr
 */
void log_to_stderr(bool on)
{
	log_stderr_on = on;
}

/**
 * log_syslog_connect() - open and connect the datagram socket to /dev/log
 *
 * Return: 0 on success, negative error code on failure
 */
static int log_syslog_connect(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int s, ret;

	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", LOG_SYSLOG_PATH);
	if (connect(s, (const struct sockaddr *)&addr, sizeof(addr))) {
		ret = -errno;
		close(s);
		return ret;
	}

	log_sock = s;
	return 0;
}

/**
 * log_to_syslog() - send messages to syslog from now on (unless a log file
 *		     is open), connecting to /dev/log if not done yet
 *
 * Call it before the sandbox hides /dev/log or forbids socket(). If syslog
 * is not reachable, messages that would go there are dropped.
 */
void log_to_syslog(void)
{
	int errno_save = errno;

	log_syslog_on = true;
	if (!log_pid)
		log_pid = getpid();
	if (log_sock < 0)
		log_syslog_connect();
	errno = errno_save;
}

/**
 * log_file_stamp() - format the wall-clock timestamp and level of a line
 * @buf:	output buffer
 * @size:	size of @buf
 * @prio:	priority of the line
 *
 * Return: length of the prefix written (not counting the terminator)
 */
static size_t log_file_stamp(char *buf, size_t size, int prio)
{
	struct timespec ts = { 0 };
	struct tm tm = { 0 };
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ %s: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		     tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000L,
		     log_level_names[log_clamp_prio(prio)]);
	if (n < 0)
		return 0;
	return MIN((size_t)n, size - 1);
}

/**
 * log_write_all() - write a buffer completely, retrying on EINTR
 * @fd:		descriptor
 * @buf:	data
 * @len:	length of @buf
 *
 * Return: 0 on success, -1 on error
 */
static int log_write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * log_write_at() - write a buffer completely at an offset
 * @fd:		descriptor, not in append mode
 * @buf:	data
 * @len:	length of @buf
 * @off:	file offset
 *
 * Return: 0 on success, -1 on error
 */
static int log_write_at(int fd, const char *buf, size_t len, off_t off)
{
	if (lseek(fd, off, SEEK_SET) != off)
		return -1;
	return log_write_all(fd, buf, len);
}

/**
 * log_read_at() - read a buffer completely from an offset
 * @fd:		descriptor
 * @buf:	buffer
 * @len:	bytes to read
 * @off:	file offset
 *
 * Return: 0 on success, -1 on error or early end of file
 */
static int log_read_at(int fd, char *buf, size_t len, off_t off)
{
	if (lseek(fd, off, SEEK_SET) != off)
		return -1;

	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * log_file_shift() - move the end of the file, from an offset, to another
 * @from:	where the bytes to keep start
 * @to:		where they go; the file is cut after them
 *
 * The descriptor must not be in append mode while this runs. Bytes before
 * @to are left as they are.
 *
 * Return: new length of the file, or -1 on error (file in unknown state)
 */
static off_t log_file_shift(off_t from, off_t to)
{
	off_t size = lseek(log_fd, 0, SEEK_END), len, done;
	char buf[LOG_COPY_CHUNK];
	size_t n;

	if (size < 0)
		return -1;
	if (from > size)
		from = size;
	len = size - from;

	if (to <= from) {
		for (done = 0; done < len; done += (off_t)n) {
			n = (size_t)MIN((off_t)sizeof(buf), len - done);
			if (log_read_at(log_fd, buf, n, from + done) ||
			    log_write_at(log_fd, buf, n, to + done))
				return -1;
		}
	} else {
		/* Growing: from the end, so nothing is overwritten unread */
		for (done = len; done > 0; done -= (off_t)n) {
			n = (size_t)MIN((off_t)sizeof(buf), done);
			if (log_read_at(log_fd, buf, n, from + done -
					  (off_t)n) ||
			    log_write_at(log_fd, buf, n, to + done -
					   (off_t)n))
				return -1;
		}
	}

	if (ftruncate(log_fd, to + len))
		return -1;
	return to + len;
}

/**
 * log_file_move() - drop the oldest half of the file, behind a marker line
 * @marker:	marker line
 * @mlen:	length of @marker
 *
 * The descriptor must not be in append mode while this runs.
 *
 * Return: new length of the file, or -1 on error (file in unknown state)
 */
static off_t log_file_move(const char *marker, size_t mlen)
{
	off_t size = lseek(log_fd, 0, SEEK_END), rd;
	char buf[LOG_COPY_CHUNK];
	ssize_t n;

	if (size < 0)
		return -1;

	/* Keep the newest half of the allowed size, from a line start */
	rd = size - (off_t)(log_max / 2);
	if (rd < (off_t)mlen)
		rd = (off_t)mlen;
	if (lseek(log_fd, rd, SEEK_SET) != rd)
		return -1;
	n = read(log_fd, buf, sizeof(buf));
	if (n < 0)
		return -1;
	if (n > 0) {
		const char *nl = memchr(buf, '\n', (size_t)n);

		if (nl)
			rd += nl - buf + 1;
	}

	if (log_write_at(log_fd, marker, mlen, 0))
		return -1;

	return log_file_shift(rd, (off_t)mlen);
}

/**
 * log_file_unappend() - take the log file out of append mode for a while
 * @flags:	set to the file status flags to restore
 *
 * Return: 0 on success, -1 on failure
 */
static int log_file_unappend(int *flags)
{
	*flags = fcntl(log_fd, F_GETFL);
	if (*flags < 0)
		return -1;
	return fcntl(log_fd, F_SETFL, *flags & ~O_APPEND) ? -1 : 0;
}

/**
 * log_file_rotate() - make room in the log file by dropping old lines
 */
static void log_file_rotate(void)
{
	char marker[LOG_HEADER_MAX + LOG_PREFIX_MAX];
	size_t mlen;
	off_t len = -1;
	int flags;

	mlen = (size_t)snprintf(marker, sizeof(marker),
				"%s - log truncated at ", log_header);
	mlen = MIN(mlen, sizeof(marker) - 1);
	mlen += log_file_stamp(marker + mlen, sizeof(marker) - mlen,
			       LOG_NOTICE);
	/* The stamp ends with the level name, "notice: ": cut it off */
	mlen = MIN(mlen, sizeof(marker) - 2);
	while (mlen && marker[mlen - 1] != 'Z')
		mlen--;
	marker[mlen++] = '\n';

	if (log_max >= LOG_ROTATE_MIN && !log_file_unappend(&flags)) {
		len = log_file_move(marker, mlen);
		fcntl(log_fd, F_SETFL, flags);
	}

	if (len < 0) {
		if (ftruncate(log_fd, 0) || log_write_all(log_fd, marker, mlen))
			len = 0;
		else
			len = (off_t)mlen;
	}
	log_len = (size_t)len;
}

/**
 * log_header_build() - format the header line for a PID
 * @pid:	PID it names
 */
static void log_header_build(pid_t pid)
{
	int n;

	n = snprintf(log_header, sizeof(log_header), "%s %s: %s (%i)",
		     log_ident, log_version, log_exe, (int)pid);
	log_header_len = n < 0 ? 0 : MIN((size_t)n, sizeof(log_header) - 1);
}

/**
 * log_set_pid() - name this PID in the header and syslog, after a fork()
 * @pid:	our PID as the host sees it (in a PID namespace of our own,
 *		getpid() says 1)
 *
 * The header names the process that opened the file; once the relay went
 * to the background, it should name the one that stays. So should syslog
 * lines.
 */
void log_set_pid(pid_t pid)
{
	size_t old = log_header_len;
	off_t len = -1;
	int flags;

	log_pid = pid;
	if (log_fd < 0)
		return;

	log_header_build(pid);
	if (log_file_unappend(&flags))
		return;
	if (log_header_len != old) {
		len = log_file_shift((off_t)old, (off_t)log_header_len);
		if (len >= 0)
			log_len = (size_t)len;
	}
	if (log_header_len == old || len >= 0)
		log_write_at(log_fd, log_header, log_header_len, 0);
	fcntl(log_fd, F_SETFL, flags);
}

/**
 * log_open_file() - log to a file from now on, in both phases
 * @path:	file, emptied, or created with mode 0600 if missing
 * @max_size:	size the file is kept under, 0 for LOG_SIZE_DEFAULT
 * @version:	version of the program, for the header line
 *
 * Return: 0 on success, negative error code on failure
 */
int log_open_file(const char *path, size_t max_size, const char *version)
{
	int errno_save = errno;
	ssize_t n;
	int fd, ret;

	fd = outfile_open(path, O_RDWR | O_APPEND, 0600);
	if (fd < 0) {
		errno = errno_save;
		return fd;
	}

	snprintf(log_version, sizeof(log_version), "%s", version);
	n = readlink("/proc/self/exe", log_exe, sizeof(log_exe) - 1);
	log_exe[n < 0 ? 0 : n] = '\0';
	log_header_build(log_pid ? log_pid : getpid());
	log_header[log_header_len] = '\n';
	if (log_write_all(fd, log_header, log_header_len + 1)) {
		ret = -errno;
		close(fd);
		errno = errno_save;
		return ret;
	}
	log_header[log_header_len] = '\0';

	if (log_fd >= 0)
		close(log_fd);
	log_fd = fd;
	log_max = max_size ? max_size : LOG_SIZE_DEFAULT;
	log_len = log_header_len + 1;
	errno = errno_save;
	return 0;
}

/**
 * log_out_stderr() - write one line to stderr
 * @msg:	message, without newline
 * @len:	length of @msg
 */
static void log_out_stderr(const char *msg, size_t len)
{
	char line[LOG_LINE_MAX];
	size_t n = 0;

	if (log_level >= LOG_DEBUG && log_fd < 0) {
		struct timespec now = { 0 };
		long long sec;
		long usec;
		int p;

		log_start_time();
		clock_gettime(CLOCK_MONOTONIC, &now);
		sec = (long long)(now.tv_sec - log_start.tv_sec);
		usec = (now.tv_nsec - log_start.tv_nsec) / 1000L;
		if (usec < 0) {
			usec += 1000000L;
			sec--;
		}
		p = snprintf(line, sizeof(line), "%lld.%06ld: ", sec, usec);
		if (p > 0)
			n = MIN((size_t)p, sizeof(line) - 1);
	}

	len = MIN(len, sizeof(line) - n - 1);
	memcpy(line + n, msg, len);
	n += len;
	line[n++] = '\n';
	log_write_all(STDERR_FILENO, line, n);
}

/**
 * log_out_file() - append one line to the log file, rotating it if needed
 * @prio:	priority
 * @msg:	message, without newline
 * @len:	length of @msg
 */
static void log_out_file(int prio, const char *msg, size_t len)
{
	char line[LOG_LINE_MAX];
	size_t n;

	n = log_file_stamp(line, sizeof(line), prio);
	len = MIN(len, sizeof(line) - n - 1);
	memcpy(line + n, msg, len);
	n += len;
	line[n++] = '\n';

	if (log_len + n > log_max)
		log_file_rotate();

	if (!log_write_all(log_fd, line, n))
		log_len += n;
}

/**
 * log_out_syslog() - send one message to syslog
 * @prio:	priority
 * @msg:	message, without newline
 * @len:	length of @msg
 */
static void log_out_syslog(int prio, const char *msg, size_t len)
{
	char line[LOG_LINE_MAX];
	size_t n;
	int p;

	if (log_sock < 0)
		return;

	p = snprintf(line, sizeof(line), "<%d>%s[%d]: ",
		     LOG_DAEMON | MIN(prio, LOG_DEBUG), log_ident,
		     (int)log_pid);
	if (p < 0)
		return;
	n = MIN((size_t)p, sizeof(line) - 1);
	len = MIN(len, sizeof(line) - n);
	memcpy(line + n, msg, len);
	n += len;

	send(log_sock, line, n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/**
 * log_vmsg() - format a message and send it to the active sinks
 * @prio:	priority
 * @errnum:	error to describe after the message, 0 for none
 * @suffix:	text to end the line with, kept whole, NULL for none
 * @fmt:	format string
 * @ap:		arguments
 */
static void log_vmsg(int prio, int errnum, const char *suffix,
		     const char *fmt, va_list ap)
{
	char msg[LOG_MSG_MAX];
	size_t len = 0, slen;
	int n;

	prio = log_clamp_prio(prio);
	if (prio > log_level)
		return;

	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n > 0)
		len = MIN((size_t)n, sizeof(msg) - 1);

	if (errnum) {
		n = snprintf(msg + len, sizeof(msg) - len, ": %s",
			     strerror(errnum));
		if (n > 0)
			len = MIN(len + (size_t)n, sizeof(msg) - 1);
	}

	while (len && msg[len - 1] == '\n')
		len--;

	if (suffix) {
		slen = MIN(strlen(suffix), sizeof(msg) - 1);
		len = MIN(len, sizeof(msg) - 1 - slen);
		memcpy(msg + len, suffix, slen);
		len += slen;
	}

	if (log_stderr_on)
		log_out_stderr(msg, len);
	if (log_fd >= 0)
		log_out_file(prio, msg, len);
	else if (log_syslog_on)
		log_out_syslog(prio, msg, len);
}

/**
 * log_msg() - log a message
 * @prio:	priority, LOG_ERR to LOG_TRACE
 * @fmt:	format string
 * @...:	arguments
 */
void log_msg(int prio, const char *fmt, ...)
{
	int errno_save = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(prio, 0, NULL, fmt, ap);
	va_end(ap);
	errno = errno_save;
}

/**
 * log_perror() - log a message followed by ": " and the text for errno
 * @prio:	priority, LOG_ERR to LOG_TRACE
 * @fmt:	format string
 * @...:	arguments
 */
void log_perror(int prio, const char *fmt, ...)
{
	int errno_save = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(prio, errno_save, NULL, fmt, ap);
	va_end(ap);
	errno = errno_save;
}

/**
 * log_rl_take() - ask a call site's rate limit whether a message may go
 * @rl:		state of the call site
 * @now_ms:	current time, milliseconds (any monotonic clock)
 *
 * Return: LOG_RL_HOLD (counted in @rl->suppressed), LOG_RL_PASS, or
 *	   LOG_RL_PASS_LAST if the bucket is now empty
 */
enum log_rl_verdict log_rl_take(struct log_rl *rl, uint64_t now_ms)
{
	const uint64_t span = (uint64_t)LOG_RL_BURST * LOG_RL_INTERVAL_MS;
	uint64_t full = MAX(rl->full_ms, now_ms) + LOG_RL_INTERVAL_MS;

	if (full > now_ms + span) {
		rl->suppressed++;
		return LOG_RL_HOLD;
	}

	rl->full_ms = full;
	if (full + LOG_RL_INTERVAL_MS > now_ms + span)
		return LOG_RL_PASS_LAST;
	return LOG_RL_PASS;
}

/**
 * log_rl_msg() - log a message unless its call site's rate limit holds
 *		  it back (see err_rl() and the others in log.h)
 * @rl:		state of the call site
 * @prio:	priority, LOG_ERR to LOG_INFO
 * @perr:	follow the message with ": " and the text for errno
 * @fmt:	format string
 * @...:	arguments
 */
void log_rl_msg(struct log_rl *rl, int prio, bool perr, const char *fmt, ...)
{
	int errno_save = errno;
	char suffix[LOG_PREFIX_MAX];
	enum log_rl_verdict v;
	struct timespec now;
	va_list ap;

	if (log_clamp_prio(prio) > log_level)
		return;

	if (clock_gettime(CLOCK_MONOTONIC, &now))
		now.tv_sec = now.tv_nsec = 0;
	v = log_rl_take(rl, (uint64_t)now.tv_sec * 1000 +
			    (uint64_t)now.tv_nsec / 1000000);
	if (v == LOG_RL_HOLD) {
		errno = errno_save;
		return;
	}

	suffix[0] = '\0';
	if (rl->suppressed) {
		snprintf(suffix, sizeof(suffix),
			 " (%lu similar messages suppressed)", rl->suppressed);
		rl->suppressed = 0;
	} else if (v == LOG_RL_PASS_LAST) {
		snprintf(suffix, sizeof(suffix),
			 " (more like it: at most one every %u s)",
			 (unsigned int)(LOG_RL_INTERVAL_MS / 1000));
	}

	va_start(ap, fmt);
	log_vmsg(prio, perr ? errno_save : 0, suffix, fmt, ap);
	va_end(ap);
	errno = errno_save;
}

/**
 * die() - log an error and exit with status 1
 * @fmt:	format string
 * @...:	arguments
 */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_ERR, 0, NULL, fmt, ap);
	va_end(ap);
	exit(EXIT_FAILURE);
}

/**
 * die_perror() - log an error with the text for errno, exit with status 1
 * @fmt:	format string
 * @...:	arguments
 */
void die_perror(const char *fmt, ...)
{
	int errno_save = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_ERR, errno_save, NULL, fmt, ap);
	va_end(ap);
	exit(EXIT_FAILURE);
}
