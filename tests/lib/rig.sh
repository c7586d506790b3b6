# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib/rig.sh - shared helpers for the integration tests
#
# Theory of operation: an integration script sources this file, calls
# rig_init, builds its rig and runs test functions with rig_run. Every
# resource a helper creates (namespace, process, temporary directory, sysctl
# change) pushes its undo command onto a cleanup stack with rig_defer; the
# stack is unwound by an EXIT trap, so cleanup happens on success, failure,
# and Ctrl-C alike. rig_run unwinds what a single test pushed as soon as that
# test ends, so tests do not leak into each other.
#
# The rig: a "host" namespace of our own (rig_host_ns) holds a veth pair with
# both ends inside it, one end carrying 192.0.2.2/24 and 2001:db8::2/64 with
# default routes via 192.0.2.1 and 2001:db8::1. The relay runs inside that
# namespace, so its template interface is always the same and no packet can
# leave the machine. The relay's own namespace (rig_target_ns) gets the same
# addresses; in it, 192.0.2.1 and 2001:db8::1 reach the host namespace's
# loopback. So: servers for namespace->host tests listen on 127.0.0.1/::1 in
# the host namespace and clients in the target namespace connect to the
# gateway addresses; for host->namespace tests the relay forwards ports (-t)
# from the host namespace into the target namespace.
#
# Output: each test prints one line, "PASS: NAME (S s)" or
# "FAIL: NAME (S s): REASON"; tests/run counts these lines. Other output is
# indented or prefixed with "#".
#
# Environment:
#   RELAY	the pasta binary (default: ./pasta at the top of the tree)
#   TOOLS_DIR	where test tools are built (default: tools/ next to the
#		relay binary if there, else build/tools)
#   RIG_PREFIX	prefix of namespace and temporary file names (default
#		rlyt-PID-; tests/run sets one per script to check cleanup)
#   RIG_KEEP	if set, keep the temporary directory (logs, data) for debugging
#   RIG_VERBOSE	if set, show the relay's log of every failing test in full
#   RIG_CONTEND	if set, run the whole script under competing load of these
#		shapes (tests/lib/contend.sh)
#   RIG_CONTEND_RUNNING  if set, that load runs already (a parent script
#		started it): judge as under contention, start nothing
#   RIG_NAME_PREFIX  prefix for every test name (a parent script running
#		this one says how, e.g. "contended: ")
#   UPSTREAM_PASST  upstream passt's binary (tests/run --upstream): tests
#		that compare with upstream run the same case on it too

RIG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/apt.sh
. "$RIG_ROOT/tests/lib/apt.sh"
# shellcheck source=tests/lib/contend.sh
. "$RIG_ROOT/tests/lib/contend.sh"

# Addresses of the rig, see above
RIG_ADDR4=192.0.2.2
RIG_GW4=192.0.2.1
RIG_ADDR6=2001:db8::2
RIG_GW6=2001:db8::1
RIG_GW_MAC=02:00:00:00:00:01

RIG_PREFIX=${RIG_PREFIX:-rlyt-$$-}
RIG_TMP=
RIG_HOSTNS=
RIG_NS=
RIG_RELAY_PID=
RIG_RELAY_LOG=
RIG_RELAY_MODE=
RIG_WHY=
RIG_PERSIST=
RIG_PASSED=0
RIG_FAILED=0
RIG_CLEANUP=()
RIG_NS_SEQ=0
RIG_RELAY_SEQ=0

# Patterns that mark a sanitizer report in a log
RIG_SAN_RE='ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer|SUMMARY: (Address|Undefined|Leak)'

# rig_log() - print a diagnostic line (not counted as a result)
# $@: message
rig_log() {
	echo "# $*"
}

# rig_now_ms() - monotonic-enough wall clock in milliseconds
rig_now_ms() {
	echo $(( $(date +%s%N) / 1000000 ))
}

# rig_secs() - format a millisecond duration as seconds with one decimal
# $1: milliseconds
rig_secs() {
	printf '%d.%d' $(( $1 / 1000 )) $(( ($1 % 1000) / 100 ))
}

# rig_defer() - push a cleanup command (evaluated later, last in first out)
# $1: command string, evaluated with eval
rig_defer() {
	RIG_CLEANUP+=("$1")
}

# rig_unwind() - run cleanup commands down to a given stack depth
# $1: depth to unwind to (default 0: everything)
rig_unwind() {
	local depth=${1:-0} cmd

	while [ "${#RIG_CLEANUP[@]}" -gt "$depth" ]; do
		cmd=${RIG_CLEANUP[-1]}
		unset 'RIG_CLEANUP[-1]'
		eval "$cmd" || rig_log "cleanup step failed: $cmd"
	done
}

# rig_exit_trap() - EXIT trap: unwind everything, keep the exit status
#
# A second Ctrl-C, or a closed output pipe, must not cut the cleanup short:
# those signals are ignored from here on (every step is bounded).
rig_exit_trap() {
	local rc=$?

	trap - EXIT
	trap '' INT TERM PIPE
	rig_unwind 0
	exit $rc
}

# rig_iperf_samples() - intervals an iperf3 run of SECS at INTERVAL gives
# $1: run length, whole seconds
# $2: interval, seconds (0.1 to $1)
# Output: the number of intervals, rounded; Return: 1 if either is invalid
rig_iperf_samples() {
	awk -v s="$1" -v i="$2" \
		'BEGIN { if (s !~ /^[0-9]+$/ || i < 0.1 || i > s) exit 1
			 printf "%d\n", s / i + 0.5 }'
}

# rig_need() - install missing commands (tests/lib/apt.sh), check for them
# $@: command names
# Return: 0 if all exist, 1 (with a FAIL line naming them, and their Debian
# packages) otherwise
rig_need() {
	local c p log missing=''

	log=$RIG_ROOT/tests/out/apt.$(basename "$0" .sh).log
	apt_need_cmds "$log" "$@" && return 0
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 && continue
		missing="$missing $c"
		p=$(apt_cmd_pkg "$c") && missing="$missing (package $p)"
	done
	echo "FAIL: prerequisites: missing commands:$missing, not" \
	     "installed (NO_APT set, not root, or apt-get failed: $log)"
	return 1
}

# rig_init() - common start of every integration script
#
# Checks root and tools, resolves $RELAY, creates the temporary directory
# and installs the cleanup trap. Exits 1 if the rig cannot work at all.
rig_init() {
	set -o pipefail
	if [ "$(id -u)" != 0 ]; then
		echo "FAIL: prerequisites: integration tests must run as root"
		exit 1
	fi
	rig_need ip ss socat sha256sum timeout head jq iperf3 || exit 1

	RELAY=${RELAY:-$RIG_ROOT/pasta}
	case $RELAY in
	/*) ;;
	*)  RELAY=$RIG_ROOT/$RELAY ;;
	esac
	if [ ! -x "$RELAY" ]; then
		echo "FAIL: prerequisites: relay binary $RELAY not found" \
		     "(run make, or set RELAY=/path/to/pasta)"
		exit 1
	fi
	# Tools come from the build the relay comes from (build-san/pasta:
	# build-san/tools), else from build/tools
	if [ -z "$TOOLS_DIR" ]; then
		TOOLS_DIR=$(dirname "$(readlink -f "$RELAY")")/tools
		[ -d "$TOOLS_DIR" ] || TOOLS_DIR=$RIG_ROOT/build/tools
	fi
	case $TOOLS_DIR in
	/*) ;;
	*)  TOOLS_DIR=$RIG_ROOT/$TOOLS_DIR ;;
	esac

	trap rig_exit_trap EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM

	RIG_TMP=$(mktemp -d "${TMPDIR:-/tmp}/${RIG_PREFIX}XXXXXX") || exit 1
	if [ -n "$RIG_KEEP" ]; then
		rig_defer "rig_log 'kept $RIG_TMP'"
	else
		rig_defer "rm -rf '$RIG_TMP'"
	fi
	rig_log "relay: $RELAY"
	if contend_on && [ -z "$RIG_CONTEND_RUNNING" ]; then
		contend_start "$RIG_CONTEND" || exit 1
	fi
}

# rig_pesto() - this build's pesto, beside the relay's binary or in build/;
# exits if there is none. Sets PESTO.
rig_pesto() {
	PESTO=$(dirname "$(readlink -f "$RELAY")")/pesto
	[ -x "$PESTO" ] || PESTO=$RIG_ROOT/build/pesto
	if [ ! -x "$PESTO" ]; then
		echo "FAIL: prerequisites: pesto not built (run make)"
		exit 1
	fi
}

# rig_upstream() - print upstream's binary for a mode, if one was given
# $1: passt or pasta
# Return: 0 with the path printed; 1 with a "#" line on stderr saying that
# the comparison with upstream's binary is skipped (no --upstream)
rig_upstream() {
	local bin

	if [ -z "$UPSTREAM_PASST" ]; then
		rig_log "comparison with upstream's $1 skipped:" \
			"no --upstream PATH (UPSTREAM_PASST)" >&2
		return 1
	fi
	bin=$(dirname "$UPSTREAM_PASST")/$1
	[ "$1" = passt ] && bin=$UPSTREAM_PASST
	if [ ! -x "$bin" ]; then
		rig_log "comparison with upstream's $1 skipped: no $bin" >&2
		return 1
	fi
	echo "$bin"
}

# rig_fail() - record why the current test failed
# $@: reason
# Return: 1, so a test can end with: cmd || rig_fail "..." || return 1
rig_fail() {
	RIG_WHY="$*"
	return 1
}

# rig_indent() - copy stdin to stdout as indented diagnostic lines
rig_indent() {
	sed 's/^/#   /'
}

# rig_tail() - show the last lines of a file, indented
# $1: file
# $2: number of lines (default 15)
rig_tail() {
	[ -s "$1" ] || return 0
	echo "#   --- last lines of $(basename "$1"):"
	tail -n "${2:-15}" "$1" | sed 's/^/#   | /'
}

# rig_run() - run one test function and print its result line
# $1: test name
# $2...: function and arguments
#
# The test passes if the function returns 0 and the relay started by the
# script (if any) is still running afterwards. Cleanup pushed by the test is
# unwound when it ends, unless the test called rig_persist.
rig_run() {
	local name=$RIG_NAME_PREFIX$1 depth=${#RIG_CLEANUP[@]} start rc elapsed
	shift

	RIG_WHY=
	RIG_PERSIST=
	start=$(rig_now_ms)
	"$@"
	rc=$?
	[ -n "$RIG_PERSIST" ] || rig_unwind "$depth"
	elapsed=$(( $(rig_now_ms) - start ))

	if [ -n "$RIG_RELAY_PID" ] && ! rig_relay_alive; then
		if [ "$rc" -eq 0 ]; then
			rc=1
			RIG_WHY="relay (pid $RIG_RELAY_PID) died during the test"
		else
			RIG_WHY="${RIG_WHY:-returned $rc}"
			RIG_WHY+=" (relay pid $RIG_RELAY_PID is not running)"
		fi
	fi

	if [ "$rc" -eq 0 ]; then
		RIG_PASSED=$((RIG_PASSED + 1))
		echo "PASS: $name ($(rig_secs "$elapsed") s)"
	else
		RIG_FAILED=$((RIG_FAILED + 1))
		echo "FAIL: $name ($(rig_secs "$elapsed") s): ${RIG_WHY:-returned $rc}"
		if [ -n "$RIG_RELAY_LOG" ]; then
			if [ -n "$RIG_VERBOSE" ]; then
				rig_tail "$RIG_RELAY_LOG" 100000
			else
				rig_tail "$RIG_RELAY_LOG"
			fi
		fi
	fi
	return 0
}

# rig_persist() - keep what the current test set up (e.g. a relay started
# by a test that later tests use) until the script ends
rig_persist() {
	RIG_PERSIST=1
}

# rig_summary() - print the script's totals and exit accordingly
rig_summary() {
	echo "# $RIG_PASSED passed, $RIG_FAILED failed"
	[ "$RIG_FAILED" -eq 0 ] && exit 0
	exit 1
}

# rig_kill() - stop a process we started: SIGTERM, then SIGKILL after 3 s
# $1: PID
#
# A process that exited counts as gone (rig_exited()), zombie or not: a
# daemon's zombie waits for PID 1 to reap it, a second or two on some
# machines, and holds nothing by then.
rig_kill() {
	local pid=$1 i

	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for i in $(seq 30); do
		rig_exited "$pid" && break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# rig_wait_pid() - wait for a background child of this shell, bounded
# $1: PID
# $2: seconds (default 60)
# Return: the child's exit status, or 124 if it was still running (then it
#	  is killed)
rig_wait_pid() {
	local pid=$1 limit=$(( ${2:-60} * 10 )) i=0

	while kill -0 "$pid" 2>/dev/null; do
		if [ $i -ge $limit ]; then
			rig_kill "$pid"
			return 124
		fi
		sleep 0.1
		i=$((i + 1))
	done
	wait "$pid"
}

# rig_ns_del() - kill every process left in a namespace we made, delete it
# $1: namespace name
rig_ns_del() {
	local pid

	for pid in $(ip netns pids "$1" 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null
	done
	ip netns del "$1" 2>/dev/null
	return 0
}

# rig_ns_new() - create an empty namespace with a unique name, loopback up
# $1: variable to store the name in
# $2: suffix for the name
# The namespace is deleted at cleanup.
rig_ns_new() {
	local name

	RIG_NS_SEQ=$((RIG_NS_SEQ + 1))
	name="${RIG_PREFIX}$2$RIG_NS_SEQ"
	ip netns add "$name" || return 1
	rig_defer "rig_ns_del '$name'"
	printf -v "$1" '%s' "$name"
	ip -n "$name" link set lo up
}

# rig_host_ns() - create the "host" namespace (see top of file)
# Sets RIG_HOSTNS.
rig_host_ns() {
	local h

	RIG_NS_SEQ=$((RIG_NS_SEQ + 1))
	h="${RIG_PREFIX}h$RIG_NS_SEQ"
	ip netns add "$h" || return 1
	rig_defer "rig_ns_del '$h'"
	RIG_HOSTNS=$h

	ip netns exec "$h" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 || return 1
	ip -n "$h" link set lo up &&
	ip -n "$h" link add veth0 type veth peer name veth1 &&
	ip -n "$h" link set veth0 up &&
	ip -n "$h" link set veth1 up &&
	ip -n "$h" addr add "$RIG_ADDR4/24" dev veth0 &&
	ip -n "$h" addr add "$RIG_ADDR6/64" dev veth0 nodad &&
	ip -n "$h" route add default via "$RIG_GW4" &&
	ip -n "$h" -6 route add default via "$RIG_GW6" &&
	ip -n "$h" neigh add "$RIG_GW4" lladdr "$RIG_GW_MAC" dev veth0 \
		nud permanent &&
	ip -n "$h" neigh add "$RIG_GW6" lladdr "$RIG_GW_MAC" dev veth0 \
		nud permanent || return 1
}

# rig_target_ns() - create the namespace the relay will serve
# Sets RIG_NS.
rig_target_ns() {
	rig_ns_new RIG_NS n
}

# rig_h() - run a command in the host namespace
#
# Not for background commands whose PID is needed: "rig_h cmd &" forks a
# subshell, and $! is the subshell's. Use "ip netns exec NS cmd &" there.
rig_h() {
	ip netns exec "$RIG_HOSTNS" "$@"
}

# rig_g() - run a command in the relay's (guest) namespace (see rig_h)
rig_g() {
	ip netns exec "$RIG_NS" "$@"
}

# rig_has_addr() - check whether a namespace has an address configured
# $1: namespace
# $2: address (no prefix length)
rig_has_addr() {
	local out

	out=$(ip -n "$1" -o addr show 2>/dev/null)
	grep -qF " $2/" <<<"$out"
}

# rig_addr_state() - state of an address, from its line of "ip -o addr"
# $1: that line, empty if the address is absent
# Prints: absent, deprecated or preferred
rig_addr_state() {
	if [ -z "$1" ]; then
		echo absent
	elif grep -q deprecated <<<"$1"; then
		echo deprecated
	else
		echo preferred
	fi
}

# rig_addrs() - one-line summary of a namespace's links and addresses
# $1: namespace
rig_addrs() {
	ip -n "$1" -br addr 2>&1 | tr -s ' \n' ' '
}

# rig_poll() - poll a condition every 0.1 s, bounded
# $1: seconds
# $2...: command; success ends the wait
# Return: 0 once the command succeeds, 1 if it never did
rig_poll() {
	local limit=$(( $1 * 10 )) i=0
	shift

	until "$@"; do
		[ $i -ge $limit ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 0
}

# rig_exited() - check whether a process has exited, all its threads
# $1: PID
#
# Gone, or a zombie that is the last thread of its process: a daemon's
# parent is PID 1 of the machine, which may reap it only a while later.
# The main thread of a relay with a worker thread is a zombie as soon as
# it has exited, while the worker still holds the process's descriptors
# (listening sockets, the tap device) until it has exited too.
rig_exited() {
	! kill -0 "$1" 2>/dev/null && return 0
	grep -q '^State:.*zombie' "/proc/$1/status" 2>/dev/null &&
		[ "$(ls "/proc/$1/task" 2>/dev/null)" = "$1" ]
}

# rig_sockets() - print TCP socket details of namespaces (for diagnostics)
# $@: namespaces
rig_sockets() {
	local ns

	for ns in "$@"; do
		echo "#   --- TCP sockets in $ns:"
		ip netns exec "$ns" ss -tnmi state established \
			state fin-wait-1 state fin-wait-2 state close-wait \
			state last-ack state syn-sent state syn-recv |
			rig_indent
	done
}

# rig_sockets_brief() - print TCP connections of namespaces, one line each,
# at most 12 per namespace (for diagnostics with many connections)
# $@: namespaces
rig_sockets_brief() {
	local ns out

	for ns in "$@"; do
		out=$(ip netns exec "$ns" ss -Htn state all \
		      exclude listening 2>&1)
		echo "#   --- TCP connections in $ns: $(grep -c . <<<"$out")," \
		     "by state: $(awk '{ n[$1]++ } END { for (s in n)
				 printf "%s %d ", s, n[s] }' <<<"$out")"
		head -n 12 <<<"$out" | rig_indent
	done
}

# rig_listening() - check whether a TCP port listens in a namespace
# $1: namespace
# $2: port
rig_listening() {
	local out

	out=$(ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null)
	[ -n "$out" ]
}

# rig_udp_bound() - check whether a UDP port is bound in a namespace
# $1: namespace
# $2: port
rig_udp_bound() {
	ip netns exec "$1" ss -Huan "sport = :$2" 2>/dev/null | grep -q .
}

# rig_wait_listen() - wait (up to 5 s) for a TCP port to listen
# $1: namespace
# $2: port
rig_wait_listen() {
	rig_poll 5 rig_listening "$1" "$2" ||
		rig_fail "nothing listens on TCP port $2 in $1 after 5 s"
}

# rig_relay_alive() - check that the relay started by rig_relay_start runs
rig_relay_alive() {
	[ -n "$RIG_RELAY_PID" ] && kill -0 "$RIG_RELAY_PID" 2>/dev/null &&
		! grep -q '^State:.*zombie' "/proc/$RIG_RELAY_PID/status" \
			2>/dev/null
}

# rig_host_move() - the rig's host changes networks: new addresses and
# default routes (their gateways answering at RIG_GW_MAC), then the
# rig's start-up addresses go
# $1: new IPv4 address (/24)
# $2: new IPv6 address (/64)
# $3: new IPv4 gateway
# $4: new IPv6 gateway
rig_host_move() {
	ip -n "$RIG_HOSTNS" addr add "$1/24" dev veth0 &&
	ip -n "$RIG_HOSTNS" addr add "$2/64" dev veth0 nodad &&
	ip -n "$RIG_HOSTNS" neigh replace "$3" lladdr "$RIG_GW_MAC" \
		dev veth0 nud permanent &&
	ip -n "$RIG_HOSTNS" neigh replace "$4" lladdr "$RIG_GW_MAC" \
		dev veth0 nud permanent &&
	ip -n "$RIG_HOSTNS" route replace default via "$3" &&
	ip -n "$RIG_HOSTNS" -6 route replace default via "$4" &&
	ip -n "$RIG_HOSTNS" addr del "$RIG_ADDR4/24" dev veth0 &&
	ip -n "$RIG_HOSTNS" addr del "$RIG_ADDR6/64" dev veth0
}

# rig_relay_mntns() - start a relay in the host namespace, in the
# background (-P), in a mount namespace of its own prepared by a shell
# snippet (e.g. its own /etc/resolv.conf)
# $1: snippet, run by sh with $0 set to $2 before the relay is exec'd
# $2: its argument
# $3: binary
# $4...: options
# Sets WRAPPED_PID, and RIG_RELAY_LOG (rig_run shows it on failure).
rig_relay_mntns() {
	local setup=$1 arg=$2 bin=$3 pidfile rc
	shift 3

	RIG_RELAY_SEQ=$((RIG_RELAY_SEQ + 1))
	RIG_RELAY_LOG=$RIG_TMP/relay.$RIG_RELAY_SEQ.log
	pidfile=$RIG_TMP/relay.$RIG_RELAY_SEQ.pid
	echo "# $bin -P $pidfile $*" >"$RIG_RELAY_LOG"
	ip netns exec "$RIG_HOSTNS" unshare -m --propagation slave \
		sh -c "$setup"' && exec "$@"' "$arg" \
		timeout 60 "$bin" -P "$pidfile" "$@" >>"$RIG_RELAY_LOG" 2>&1
	rc=$?
	WRAPPED_PID=$(cat "$pidfile" 2>/dev/null)
	[ -n "$WRAPPED_PID" ] && rig_defer "rig_kill '$WRAPPED_PID'"
	if [ "$rc" -ne 0 ] || [ -z "$WRAPPED_PID" ]; then
		rig_fail "$(basename "$bin") exited with status $rc:" \
			 "$(tail -n 3 "$RIG_RELAY_LOG" | tr '\n' ' ')"
	fi
}

# rig_relay_start() - start the relay in the host namespace for RIG_NS
# $1: "fg" (foreground, -f, in the background of this shell) or "daemon"
#     (the relay forks once configured, -P gives its PID)
# $2...: more relay options (e.g. -t PORTS)
#
# Always passes --runas 0 (we are root; the relay would switch to nobody),
# --config-net, -u none -T none -U none (no automatic forwarding), and
# --netns RIG_NS. In daemon mode the relay's exit status 0 must mean "ready":
# the namespace addresses are checked right away, without waiting. In
# foreground mode readiness is polled for (up to 5 s).
# Sets RIG_RELAY_PID, RIG_RELAY_LOG, RIG_RELAY_MODE. Calls rig_persist: the
# relay runs until the end of the script (or rig_relay_stop_check).
# RIG_RELAY_WRAP, if set, is a command (words) the relay is started
# through, in daemon mode (e.g. tests/tools/tap_fd, for --fd).
rig_relay_start() {
	local mode=$1 pidfile rc
	shift

	rig_persist
	set -- --runas 0 --config-net -u none -T none -U none "$@" \
		--netns "$RIG_NS"

	if [ "$mode" = daemon ]; then
		RIG_RELAY_SEQ=$((RIG_RELAY_SEQ + 1))
		RIG_RELAY_LOG=$RIG_TMP/relay.$RIG_RELAY_SEQ.log
		RIG_RELAY_MODE=$mode
		pidfile=$RIG_TMP/relay.$RIG_RELAY_SEQ.pid
		echo "# $RIG_RELAY_WRAP $RELAY -P $pidfile $*" >"$RIG_RELAY_LOG"
		# shellcheck disable=SC2086 # the wrapper is split into words
		rig_h timeout 30 $RIG_RELAY_WRAP "$RELAY" -P "$pidfile" "$@" \
			>>"$RIG_RELAY_LOG" 2>&1
		rc=$?
		RIG_RELAY_PID=$(cat "$pidfile" 2>/dev/null)
		[ -n "$RIG_RELAY_PID" ] &&
			rig_defer "rig_kill '$RIG_RELAY_PID'"
		[ "$rc" -eq 0 ] ||
			rig_fail "relay (daemon mode) exited with status $rc" ||
			return 1
		[ -n "$RIG_RELAY_PID" ] ||
			rig_fail "relay did not write its PID file" || return 1
		rig_relay_alive ||
			rig_fail "relay pid $RIG_RELAY_PID not running" ||
			return 1
		rig_has_addr "$RIG_NS" "$RIG_ADDR4" ||
			rig_fail "$RIG_ADDR4 not configured in the namespace" \
				 "when the relay returned; it has:" \
				 "$(rig_addrs "$RIG_NS")" || return 1
		rig_has_addr "$RIG_NS" "$RIG_ADDR6" ||
			rig_fail "$RIG_ADDR6 not configured in the namespace" \
				 "when the relay returned; it has:" \
				 "$(rig_addrs "$RIG_NS")" || return 1
	else
		rig_relay_fg "$RELAY" "$@" || return 1
		rig_wait_addrs || return 1
		rig_relay_alive ||
			rig_fail "relay exited during start-up" || return 1
	fi
	rig_log "relay pid $RIG_RELAY_PID ($mode), log $RIG_RELAY_LOG"
}

# rig_relay_fg() - start a relay in the foreground (-f), in the background
# of this shell, with the options given and no others
# $1: binary
# $2...: options (rig_relay_start's, or a script's own where a port list
#	 can't follow rig_relay_start's fixed "-u none -T none -U none")
#
# Sets RIG_RELAY_PID, RIG_RELAY_LOG and RIG_RELAY_MODE (fg), so that rig_run
# shows the log of a failing test and rig_relay_stop_check works. The relay
# is killed when the test ends, unless rig_persist was called before.
rig_relay_fg() {
	local bin=$1
	shift

	RIG_RELAY_SEQ=$((RIG_RELAY_SEQ + 1))
	RIG_RELAY_LOG=$RIG_TMP/relay.$RIG_RELAY_SEQ.log
	RIG_RELAY_MODE="fg"
	echo "# $bin -f $*" >"$RIG_RELAY_LOG"
	# Not through rig_h: $! must be the relay (ip netns exec execs it),
	# not a subshell running a function
	ip netns exec "$RIG_HOSTNS" "$bin" -f "$@" >>"$RIG_RELAY_LOG" 2>&1 &
	RIG_RELAY_PID=$!
	rig_defer "rig_kill '$RIG_RELAY_PID'"
}

# rig_wait_addrs() - wait (up to 5 s each) for the relay to configure both
# of the rig's addresses in the namespace it serves
rig_wait_addrs() {
	local a

	for a in "$RIG_ADDR4" "$RIG_ADDR6"; do
		rig_poll 5 rig_has_addr "$RIG_NS" "$a" ||
			rig_fail "$a not configured in the namespace after" \
				 "5 s; it has: $(rig_addrs "$RIG_NS")" ||
			return 1
	done
}

# rig_relay_stop_check() - test step: stop the relay, check it went cleanly
#
# SIGTERM must end the relay within 5 s. In foreground mode the exit status
# must be 0 or 143 (terminated by the signal) and the log must hold no
# sanitizer report. Meant to be the last rig_run of a script.
rig_relay_stop_check() {
	local pid=$RIG_RELAY_PID rc=0

	[ -n "$pid" ] || rig_fail "no relay running" || return 1
	RIG_RELAY_PID=
	kill -0 "$pid" 2>/dev/null ||
		rig_fail "relay (pid $pid) was not running" || return 1
	kill -TERM "$pid"
	if ! rig_poll 5 rig_exited "$pid"; then
		kill -KILL "$pid" 2>/dev/null
		rig_fail "relay did not exit within 5 s of SIGTERM"
		return 1
	fi
	if [ "$RIG_RELAY_MODE" = fg ]; then
		wait "$pid"
		rc=$?
		case $rc in
		0|143) ;;
		*) rig_fail "relay exited with status $rc after SIGTERM"
		   return 1 ;;
		esac
	fi
	rig_no_san "$RIG_RELAY_LOG"
}

# rig_no_san() - check that a log holds no sanitizer report
# $1: log file (the relay's stderr)
rig_no_san() {
	! grep -Eq "$RIG_SAN_RE" "$1" 2>/dev/null ||
		rig_fail "sanitizer report in $(basename "$1"):" \
			 "$(grep -Em 1 "$RIG_SAN_RE" "$1")"
}

# rig_relay_counter() - one of the relay's counters, fresh (SIGUSR1)
# $1: module as the log line starts (e.g. "tcp")
# $2: key (e.g. "retrans")
# Prints the value; the relay must log to $RIG_RELAY_LOG.
rig_relay_counter() {
	local before

	before=$(grep -c "$1: .*$2=" "$RIG_RELAY_LOG" 2>/dev/null)
	kill -USR1 "$RIG_RELAY_PID" 2>/dev/null || return 1
	rig_poll 2 rig_log_grew "$RIG_RELAY_LOG" "$1: .*$2=" "${before:-0}" ||
		return 1
	grep -o "$1: .* $2=[0-9]*" "$RIG_RELAY_LOG" | tail -1 |
		sed "s/.* $2=//"
}

# Counters of the relay, by "MODULE.KEY" (tap.rx_short, net.frames, ...):
# see rig_relay_stats()
declare -gA RIG_CNT

# rig_relay_stats() - make the relay log its counters (SIGUSR1), load them
# Fills RIG_CNT from the newest line of each module (tap, net, tcp, udp,
# qdisc); the relay must log to $RIG_RELAY_LOG.
# Return: 0 if a new set of counters appeared in the log within 5 s
rig_relay_stats() {
	local before line kv first m

	before=$(grep -c 'qdisc: frames=' "$RIG_RELAY_LOG" 2>/dev/null)
	kill -USR1 "$RIG_RELAY_PID" 2>/dev/null ||
		rig_fail "can't signal the relay (pid $RIG_RELAY_PID)" ||
		return 1
	rig_poll 5 rig_log_grew "$RIG_RELAY_LOG" 'qdisc: frames=' \
		"${before:-0}" ||
		rig_fail "no counters in the relay's log 5 s after SIGUSR1" ||
		return 1
	RIG_CNT=()
	# Each module's line, by its first key (qdisc's per-flow lines and
	# tcp's per-connection ones start otherwise)
	for first in tap:rx_frames net:frames tcp:conns_out udp:flows_guest \
		     qdisc:frames; do
		m=${first%%:*}
		line=$(grep "$m: ${first#*:}=" "$RIG_RELAY_LOG" | tail -n 1)
		line=${line##*"$m: "}
		for kv in $line; do
			# shellcheck disable=SC2034 # read by the tests
			case $kv in
			*=*) RIG_CNT[$m.${kv%%=*}]=${kv#*=} ;;
			esac
		done
	done
}

# rig_relay_counters() - several of the relay's counters, fresh (SIGUSR1)
# $1: module as the log line starts (e.g. "tcp")
# $2...: keys (e.g. "retrans wnd_forced")
# Prints the values on one line, in the order of the keys; nothing if the
# relay did not log them all.
rig_relay_counters() {
	local mod=$1 k out=''
	shift

	rig_relay_stats || return 1
	for k in "$@"; do
		[ -n "${RIG_CNT[$mod.$k]}" ] || return 1
		out+="${RIG_CNT[$mod.$k]} "
	done
	echo "${out% }"
}

# rig_log_grew() - does a file hold more lines matching a pattern than before?
# $1: file
# $2: grep pattern
# $3: matching lines before
rig_log_grew() {
	[ "$(grep -c "$2" "$1" 2>/dev/null)" -gt "$3" ]
}

# rig_nstat() - absolute value of a kernel SNMP counter in a namespace
# $1: namespace
# $2: counter (e.g. TcpRetransSegs, TcpExtTCPWinProbe)
rig_nstat() {
	ip netns exec "$1" nstat -asz "$2" 2>/dev/null |
		awk -v k="$2" '$1 == k { print $2 }'
}

# rig_without_tlp() - retransmissions not counting tail loss probes, nor
# those the receiver reported as duplicates
# $1: retransmitted segments (a difference of TcpRetransSegs)
# $2: tail loss probes in the same time (of TcpExtTCPLossProbes)
# $3: optional, duplicate reports received in the same time (of
#     TcpExtTCPDSACKRecv)
#
# A tail loss probe (RFC 8985, SACK connections) resends the last segment
# when no ACK came for two round trips, at least 10 ms: a late ACK on a
# busy machine, not a loss, but the kernel counts it as a retransmission.
# A probe may carry new data instead, hence the floor at 0.
#
# A D-SACK (RFC 2883) tells the sender that a segment arrived twice: its
# retransmission was spurious, the original had not been lost. Over
# loopback or a veth pair that happens when segments of one connection
# are reordered between the two CPUs' backlog queues, and the sender takes
# the reordering for loss. A spurious tail loss probe is reported by a
# D-SACK too, so the larger of the two is left out, not their sum; one
# D-SACK may cover several segments, so what remains can still include
# spurious ones, never hides a loss.
rig_without_tlp() {
	local spurious=$2 r

	[ "${3:-0}" -gt "$spurious" ] && spurious=$3
	r=$(($1 - spurious))
	echo $((r < 0 ? 0 : r))
}

# rig_still_serving() - after an attack: the relay still serves a new
# connection (1 MiB namespace->host, sha256), with any shaping of the host
# namespace's loopback removed
# $1: namespace of the guest
rig_still_serving() {
	rig_h tc qdisc del dev lo root 2>/dev/null
	rig_random_file "$RIG_TMP/small.bin" 1M || return 1
	rig_transfer "$1" "TCP4:$RIG_GW4:7002" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7002,bind=127.0.0.1" \
		"$RIG_TMP/small.bin" 10
}

# rig_dns_query_both() - a forwarded DNS server answers test.example with
# 198.51.100.7 (tests/tools/dns_stub's answer) over UDP and over TCP
# $1: server address the guest queries
# $2...: command running dns_stub in the guest (e.g. ip netns exec NS STUB)
rig_dns_query_both() {
	local srv=$1 out
	shift

	out=$("$@" query -s "$srv" -p 53 -n test.example 2>&1)
	[ "$out" = 198.51.100.7 ] || rig_fail "UDP query: $out" || return 1
	out=$("$@" query -s "$srv" -p 53 -n test.example -t 2>&1)
	[ "$out" = 198.51.100.7 ] || rig_fail "TCP query: $out"
}

# rig_user_copy() - copy a program where another user can run it
# $1: program (a link is followed; the copy keeps the link's name, which
#     selects passt or pasta)
# $2: user ID (also the group ID) that will run it
# Prints the copy's path. A test running the relay as another user (as
# libvirt does) can't use the build itself: a clone in root's home (0700)
# is out of that user's reach. The copy goes to a directory of the rig's
# temporary one, opened for traversal; that the user can reach it is
# checked, so that a TMPDIR of the wrong mode is named, not a mystery.
# Return: 0, or 1 with the reason on stderr
rig_user_copy() {
	local dir=$RIG_TMP/user-$2 copy

	copy=$dir/$(basename "$1")
	mkdir -p "$dir" && chmod 755 "$dir" && chmod o+x "$RIG_TMP" &&
		cp "$(readlink -f "$1")" "$copy" && chmod 755 "$copy" ||
		return 1
	if ! setpriv --reuid="$2" --regid="$2" --clear-groups \
	     test -x "$copy"; then
		echo "user $2 can't run $copy: is a directory above it" \
		     "closed (TMPDIR=${TMPDIR:-/tmp})?" >&2
		return 1
	fi
	echo "$copy"
}

# rig_random_file() - create a file of random bytes
# $1: path
# $2: size for head -c (e.g. 200M, 1M)
rig_random_file() {
	head -c "$2" /dev/urandom >"$1" && rig_sha "$1" >/dev/null
}

# rig_sha() - print the SHA-256 of a file, cached in FILE.sha256
# $1: file (must not change after its first rig_sha)
rig_sha() {
	if [ ! -s "$1.sha256" ] || [ "$1.sha256" -ot "$1" ]; then
		sha256sum "$1" | cut -d' ' -f1 >"$1.sha256"
	fi
	cat "$1.sha256"
}

# rig_sha_eq() - compare the SHA-256 of two files
# $1: expected (sent) file
# $2: received file
# Return: 0 if equal, otherwise rig_fail with sizes and sums
rig_sha_eq() {
	local a b

	a=$(rig_sha "$1")
	b=$(rig_sha "$2")
	[ "$a" = "$b" ] && return 0
	rig_fail "sha256 mismatch: $(basename "$1") $(stat -c %s "$1") bytes" \
		 "${a:0:12}..., $(basename "$2") $(stat -c %s "$2") bytes" \
		 "${b:0:12}..."
}

# rig_sysctl_set() - set a sysctl, restore its old value at cleanup
# $1: key (e.g. net.core.rmem_max)
# $2: value
# $3: namespace (optional; global keys like net.core.rmem_max can only be
#     set from the initial namespace, so omit it for those)
rig_sysctl_set() {
	local key=$1 val=$2 ns=$3 old run=

	[ -n "$ns" ] && run="ip netns exec $ns"
	old=$($run sysctl -n "$key") || return 1
	rig_defer "$run sysctl -qw '$key=$old'"
	$run sysctl -qw "$key=$val"
}

# rig_tcp_recv_sha() - start a one-shot TCP receiver that hashes what it gets
# $1: namespace
# $2: socat listen address (e.g. TCP4-LISTEN:7000,bind=127.0.0.1)
# $3: file for the hash
# $4: timeout in seconds
# Sets RIG_BG_PID (wait for it with rig_wait_pid).
rig_tcp_recv_sha() {
	ip netns exec "$1" timeout -k 5 "$4" \
		bash -o pipefail -c "socat -u '$2,reuseaddr' STDOUT |
				     sha256sum | cut -d' ' -f1" >"$3" &
	RIG_BG_PID=$!
	rig_defer "rig_kill $RIG_BG_PID"
}

# rig_transfer_both() - a file from a namespace to the host's loopback
# (port 7001, through the relay's gateway), then from the host back to the
# namespace through a forwarded port, each checked with sha256
# $1: namespace of the guest
# $2: file
# $3: port forwarded to the guest
# $4: seconds each may take
rig_transfer_both() {
	rig_transfer "$1" "TCP4:$RIG_GW4:7001" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" "$2" "$4" ||
		return 1
	rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$3" \
		"$1" "TCP4-LISTEN:$3" "$2" "$4"
}

# rig_need_tool() - check that a test tool is built, set a variable to it
# $1: variable name
# $2: tool (tests/tools/NAME, in $TOOLS_DIR)
# Return: 0 if it is there, else 1 with a FAIL line (prerequisites)
rig_need_tool() {
	local t=$TOOLS_DIR/$2

	if [ ! -x "$t" ]; then
		echo "FAIL: prerequisites: $t not built (run make tools)"
		return 1
	fi
	printf -v "$1" '%s' "$t"
}

# rig_shape_loopback() - slow the host namespace's loopback down (tbf),
# undone at cleanup
# $1: rate (e.g. 500mbit)
rig_shape_loopback() {
	rig_h tc qdisc add dev lo root tbf rate "$1" burst 512kb \
		latency 100ms || rig_fail "can't add tbf to lo" || return 1
	rig_defer "rig_h tc qdisc del dev lo root 2>/dev/null; true"
}

# Transfers of rig_bulk_start(): sender and receiver PIDs, hash files
RIG_BULK_SND_OUT=
RIG_BULK_SND_IN=
RIG_BULK_RCV_OUT=
RIG_BULK_RCV_IN=

# rig_bulk_start() - start a transfer of a file each way: from a namespace
# to the host's loopback (port 7001, through the relay's gateway address),
# and from the host to the namespace through a forwarded port
# $1: namespace of the guest
# $2: file
# $3: port forwarded to the guest
# $4: seconds each side may take
# $5: optional: a command (a string for eval); while it fails, each sender
#     sends the file again, so that the traffic lasts as long as whatever
#     the command waits for, however long that takes (the bytes sent are
#     hashed on the way, for rig_bulk_check())
rig_bulk_start() {
	local ns=$1 file=$2 fwd=$3 limit=$4 until=$5

	rm -f "$RIG_TMP"/bulk_*.sha "$RIG_TMP"/bulk_*.sent
	rig_tcp_recv_sha "$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
		"$RIG_TMP/bulk_out.sha" $((limit + 20))
	RIG_BULK_RCV_OUT=$RIG_BG_PID
	rig_tcp_recv_sha "$ns" "TCP4-LISTEN:$fwd" "$RIG_TMP/bulk_in.sha" \
		$((limit + 20))
	RIG_BULK_RCV_IN=$RIG_BG_PID
	rig_wait_listen "$RIG_HOSTNS" 7001 || return 1
	rig_wait_listen "$ns" "$fwd" || return 1

	rig_bulk_sender "$ns" "$file" "TCP4:$RIG_GW4:7001" out "$limit" \
		"$until"
	RIG_BULK_SND_OUT=$!
	rig_bulk_sender "$RIG_HOSTNS" "$file" "TCP4:$RIG_ADDR4:$fwd" in \
		"$limit" "$until"
	RIG_BULK_SND_IN=$!
}

# rig_bulk_repeat() - for rig_bulk_start() with a command: the file again
# and again until the command succeeds, on stdout, hashed on the way
# $1: file
# $2: command
# $3: where the hash goes
rig_bulk_repeat() {
	{
		cat "$1"
		while ! eval "$2"; do
			cat "$1"
		done
	} | tee >(sha256sum | cut -d' ' -f1 >"$3")
}

# rig_bulk_sender() - one sender of rig_bulk_start(), in the background
# $1: namespace
# $2: file
# $3: socat connect address
# $4: "out" or "in", for its files
# $5: seconds it may take
# $6: command for rig_bulk_repeat(), or empty to send the file once
rig_bulk_sender() {
	local err=$RIG_TMP/bulk_$4.err

	if [ -z "$6" ]; then
		ip netns exec "$1" timeout -k 5 "$5" socat -u "FILE:$2" \
			"$3,connect-timeout=5" 2>"$err" &
	else
		# shellcheck disable=SC2016 # expanded by the inner bash
		ip netns exec "$1" timeout -k 5 "$5" bash -c \
			"$(declare -f rig_bulk_repeat)"'
			rig_bulk_repeat "$1" "$2" "$3" |
				socat -u - "$0,connect-timeout=5"' \
			"$3" "$2" "$6" "$RIG_TMP/bulk_$4.sent" 2>"$err" &
	fi
	rig_defer "rig_kill $!"
}

# rig_bulk_running() - are both transfers of rig_bulk_start() still going?
rig_bulk_running() {
	! rig_exited "$RIG_BULK_SND_OUT" && ! rig_exited "$RIG_BULK_SND_IN"
}

# rig_bulk_check() - wait for both transfers, compare what arrived
# $1: the file sent
# $2: seconds the senders may still take
rig_bulk_check() {
	local want d sent

	rig_wait_pid "$RIG_BULK_SND_OUT" "$2" ||
		rig_fail "namespace -> host sender failed:" \
			 "$(cat "$RIG_TMP/bulk_out.err")" || return 1
	rig_wait_pid "$RIG_BULK_SND_IN" "$2" ||
		rig_fail "host -> namespace sender failed:" \
			 "$(cat "$RIG_TMP/bulk_in.err")" || return 1
	rig_wait_pid "$RIG_BULK_RCV_OUT" 20 ||
		rig_fail "receiver on host failed" || return 1
	rig_wait_pid "$RIG_BULK_RCV_IN" 20 ||
		rig_fail "receiver in namespace failed" || return 1
	for d in out in; do
		sent=$RIG_TMP/bulk_$d.sent
		want=$(rig_sha "$1")
		if [ -e "$sent" ]; then
			rig_poll 5 test -s "$sent"
			want=$(cat "$sent")
		fi
		[ "$(cat "$RIG_TMP/bulk_$d.sha")" = "$want" ] ||
			rig_fail "$d: sha256 of what arrived differs from" \
				 "what was sent" || return 1
	done
}

# rig_port_of() - extract the port from a socat listen address
# $1: e.g. TCP4-LISTEN:7000,bind=127.0.0.1
rig_port_of() {
	local p=${1#*:}

	echo "${p%%,*}"
}

# rig_transfer() - send a file over TCP from one namespace to another
# $1: sender namespace
# $2: socat connect address (e.g. TCP4:192.0.2.1:7000)
# $3: receiver namespace
# $4: socat listen address
# $5: file to send
# $6: timeout in seconds
#
# The receiver hashes the stream; the test passes if both ends exit 0 and
# the hash equals the file's. Prints the throughput as a diagnostic.
rig_transfer() {
	local sns=$1 conn=$2 rns=$3 listen=$4 file=$5 limit=$6
	local sumfile start ms rc size want got pid

	sumfile=$RIG_TMP/recv.$RANDOM.sha
	# The receiver outlives the sender's limit: on a stall, the sockets
	# are shown while both ends still exist
	rig_tcp_recv_sha "$rns" "$listen" "$sumfile" $((limit + 20))
	rig_wait_listen "$rns" "$(rig_port_of "$listen")" || return 1

	start=$(rig_now_ms)
	ip netns exec "$sns" timeout -k 5 $((limit + 10)) \
		socat -u "FILE:$file" "$conn,connect-timeout=5" \
		2>"$RIG_TMP/sender.err" &
	pid=$!
	if ! rig_poll "$limit" rig_exited "$pid"; then
		rig_log "sender still running after $limit s; sockets:"
		rig_sockets "$sns" "$rns"
		rig_kill "$pid"
		rig_fail "transfer not done after $limit s" || return 1
	fi
	wait "$pid"
	rc=$?
	[ "$rc" -eq 0 ] || rig_fail "sender exited with status $rc:" \
		"$(tr '\n' ' ' <"$RIG_TMP/sender.err")" || return 1
	rig_wait_pid "$RIG_BG_PID" "$limit"
	rc=$?
	ms=$(( $(rig_now_ms) - start ))
	[ "$rc" -eq 0 ] ||
		rig_fail "receiver exited with status $rc" || return 1

	want=$(rig_sha "$file")
	got=$(cat "$sumfile")
	size=$(stat -c %s "$file")
	[ "$want" = "$got" ] ||
		rig_fail "sha256 mismatch: sent ${want:0:12}...," \
			 "received ${got:0:12}..." || return 1
	[ "$ms" -gt 0 ] || ms=1
	rig_log "$((size / 1048576)) MiB in $(rig_secs "$ms") s," \
		"$(( size * 8 / ms / 1000 )) Mbit/s"
}
