#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/resolver_follow.sh - the DNS settings follow the host's
# resolver file while the relay runs (issue 37)
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): two DNS responders of our own
# (tests/tools/dns_stub) in the host namespace, OLD4 and NEW4 on its
# loopback, each counting the queries it answered. Each relay runs in a
# mount namespace of its own where /etc is an overlay whose resolv.conf is
# a link to a file in a directory of the test ($DIR/resolv.conf), as
# systemd-resolved's and NetworkManager's are; the file names OLD4 first.
#
#   rename:    pasta --config-net --dns-forward FWD4 (--follow-host: the
#              test runs it as root of the initial user namespace); a
#              query to FWD4 in the namespace reaches OLD4; the file is
#              replaced by a new one renamed over it, naming NEW4: polled
#              up to FOLLOW_BOUND s, a query to FWD4 reaches NEW4; the
#              change is logged at info. Then the file is rewritten in
#              place (the link's target truncated and written) naming
#              OLD4 again: queries go back to OLD4.
#   confined:  a following relay's descriptors: none into the directory
#              ($DIR), and those that aren't sockets (flows of the
#              queries) are what they were before the change; its seccomp
#              filter refuses openat(). Its reader (its child, isolation/
#              resolv_reader.c) holds the directory, at descriptor 3, and
#              no file in it (none was left open by the reads); the
#              reader's filter allows openat() on 3 with the flags of its
#              rule, and kills it on any other descriptor or with other
#              flags (seccomp_dump call); no "No Landlock" was logged.
#   landlock:  the test build of pasta (make hook) has the reader open a
#              name from its environment instead of the file's: "../" and
#              a sibling directory holding a file that names NEW4.
#              seccomp lets the call through (same descriptor, same
#              flags); Landlock must refuse it: the relay logs EACCES and
#              queries still reach OLD4.
#   fixed:     pasta with --no-follow-host: after the same change, queries
#              to FWD4 still reach OLD4 (asserted once the following
#              relay of the same run showed it was seen).
#   bind:      the file bind-mounted over /etc/resolv.conf (ip netns exec
#              does that): the sandbox couldn't see it again, so it isn't
#              followed: no reader, said at debug level, OLD4 answers.
#   dhcp:      passt, the guest a namespace behind tools/tap_bridge: DHCP
#              offers OLD4; after the change, a new DHCP exchange offers
#              NEW4, and router advertisements (RDNSS) NEW6 instead of
#              OLD6.
#
# No timing assertion: every wait is a poll up to a bound.

# shellcheck disable=SC2086 # $H: command prefix, split on purpose
# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

OLD4=198.51.100.53
NEW4=198.51.100.54
FWD4=198.51.100.200
OLD6=2001:db8:53::1
NEW6=2001:db8:54::1
ANSWER=198.51.100.7
NAME=test.example
FOLLOW_BOUND=10		# seconds to poll for the relay to follow
# Flags of the reader's openat() rule: O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
# O_NONBLOCK | O_NOCTTY (guest/follow.h, x86-64 values)
OPEN_FLAGS=$((0x80000 | 0x20000 | 0x800 | 0x100))
WRAPPED_PID=

rig_init
passt_init
rig_host_ns || exit 1

STUB=$TOOLS_DIR/dns_stub
PROBE=$TOOLS_DIR/dns6_probe
DUMP=$TOOLS_DIR/seccomp_dump
for t in "$STUB" "$PROBE" "$DUMP"; do
	[ -x "$t" ] || { echo "FAIL: prerequisites: $t not built"; exit 1; }
done
H="ip netns exec $RIG_HOSTNS"

if ! ip -n "$RIG_HOSTNS" addr add $OLD4/32 dev lo ||
   ! ip -n "$RIG_HOSTNS" addr add $NEW4/32 dev lo; then
	echo "FAIL: prerequisites: responder addresses"
	exit 1
fi
COUNT_OLD=$RIG_TMP/count.old
COUNT_NEW=$RIG_TMP/count.new
$H "$STUB" server -b $OLD4 -p 53 -A $ANSWER -c "$COUNT_OLD" \
	2>"$RIG_TMP/stub.old.err" &
rig_defer "rig_kill $!"
$H "$STUB" server -b $NEW4 -p 53 -A $ANSWER -c "$COUNT_NEW" \
	2>"$RIG_TMP/stub.new.err" &
rig_defer "rig_kill $!"
if ! rig_poll 5 eval "$H ss -Hlun 'sport = :53' | grep -q $OLD4" ||
   ! rig_poll 5 eval "$H ss -Hlun 'sport = :53' | grep -q $NEW4"; then
	echo "FAIL: prerequisites: DNS responders did not start"
	exit 1
fi

# answered() - number of queries a responder answered so far
# $1: its count file
answered() {
	cat "$1" 2>/dev/null || echo 0
}

# reaches() - does a query to FWD4 from a namespace reach a responder?
# $1: namespace
# $2: count file of the responder
reaches() {
	local before out

	before=$(answered "$2")
	out=$(ip netns exec "$1" "$STUB" query -s $FWD4 -p 53 -n $NAME -w 2 \
	      2>&1)
	[ "$out" = $ANSWER ] && [ "$(answered "$2")" -gt "$before" ]
}

# resolv_dir() - a directory for one relay's resolver file, other users
# may search it (the relay reads it as --runas)
# $1: variable to set to its path
resolv_dir() {
	local d=$RIG_TMP/resolv.$RANDOM

	mkdir -m 0755 "$d" || return 1
	printf -v "$1" '%s' "$d"
}

# resolv_write() - the file names servers, replaced by rename
# $1: directory
# $2...: nameserver addresses
resolv_write() {
	local d=$1 a
	shift

	for a in "$@"; do echo "nameserver $a"; done >"$d/resolv.conf.new" &&
		mv -f "$d/resolv.conf.new" "$d/resolv.conf"
}

# resolv_rewrite() - the file names servers, rewritten in place
# $1: directory
# $2...: nameserver addresses
resolv_rewrite() {
	local d=$1 a
	shift

	for a in "$@"; do echo "nameserver $a"; done >"$d/resolv.conf"
}

# wrapped() - start a relay in the host namespace, in a mount namespace
# where /etc is an overlay, /etc/resolv.conf a link to DIR/resolv.conf,
# in the background (-P)
# $1: binary
# $2: DIR
# $3...: options
# Sets WRAPPED_PID, and RIG_RELAY_LOG (rig_run shows it on failure).
wrapped() {
	local bin=$1 dir=$2
	shift 2

	mkdir "$dir.up" "$dir.work" || return 1
	# shellcheck disable=SC2016 # $0 expands in that shell
	rig_relay_mntns 'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$0.up,workdir=$0.work" /etc &&
		 rm -f /etc/resolv.conf && ln -s "$0/resolv.conf" /etc/resolv.conf' \
		"$dir" "$bin" "$@"
}

# pasta_start() - pasta --config-net --dns-forward FWD4 for a namespace
# $1: namespace
# $2: resolver directory
# $3...: more options
pasta_start() {
	local ns=$1 dir=$2
	shift 2

	wrapped "${PASTA_BIN:-$RELAY}" "$dir" --runas 0 -d -l "$dir.log" --config-net \
		--dns-forward $FWD4 --netns "$ns" "$@" || return 1
	rig_poll 5 reaches "$ns" "$COUNT_OLD" ||
		rig_fail "a query to $FWD4 didn't reach $OLD4 at start"
}

# dir_fds() - descriptors of a process pointing into a directory
# $1: PID
# $2: directory
dir_fds() {
	local f

	for f in /proc/"$1"/fd/*; do
		readlink "$f"
	done | grep -c -e "^$2$" -e "^$2/"
}

# files() - what a process's descriptors other than sockets point to
# $1: PID
files() {
	local f

	for f in /proc/"$1"/fd/*; do
		readlink "$f"
	done | grep -v '^socket:' | sort | tr '\n' ' '
}

FOLLOW_NS=
FOLLOW_PID=
FOLLOW_DIR=

# follow_start() - a following pasta (each test runs in a subshell)
# Sets FOLLOW_NS, FOLLOW_DIR, FOLLOW_PID.
follow_start() {
	rig_ns_new FOLLOW_NS n || return 1
	resolv_dir FOLLOW_DIR && resolv_write "$FOLLOW_DIR" $OLD4 || return 1
	pasta_start "$FOLLOW_NS" "$FOLLOW_DIR" --follow-host || return 1
	FOLLOW_PID=$WRAPPED_PID
}

# follow_new() - the following relay's file names NEW4: wait until seen
follow_new() {
	resolv_write "$FOLLOW_DIR" $NEW4 || return 1
	rig_poll $FOLLOW_BOUND reaches "$FOLLOW_NS" "$COUNT_NEW" ||
		rig_fail "after the rename, queries to $FWD4 don't reach" \
			 "$NEW4"
}

# pasta_rename() - test: replaced by rename, rewritten in place, followed
pasta_rename() {
	follow_start && follow_new || return 1
	grep -q "info: Host network changed: IPv4 DNS forwarding target $OLD4 -> $NEW4" \
		"$FOLLOW_DIR.log" ||
		rig_fail "the change wasn't logged at info" || return 1

	resolv_rewrite "$FOLLOW_DIR" $OLD4 || return 1
	rig_poll $FOLLOW_BOUND reaches "$FOLLOW_NS" "$COUNT_OLD" ||
		rig_fail "after rewriting in place, queries to $FWD4 don't" \
			 "reach $OLD4"
}

# reader_of() - the PID of a relay's first child, the resolver file's
# reader
# $1: relay PID
reader_of() {
	local r

	# No newline at the end of the list: read fails, yet sets r
	read -r r _ <"/proc/$1/task/$1/children" 2>/dev/null
	[ -n "$r" ] && echo "$r"
}

# refused() - a process's filter kills a call with given arguments; in a
# sanitizer build, whose run time's calls are allowed whatever the
# arguments, a call it lists is skipped (and counts as refused)
# $1: mode of the process's lists (pasta, resolv)
# $2: PID
# $3: call
# $4...: its arguments
refused() {
	local mode=$1 pid=$2 out

	# grep without -q: reading to the end spares the dump a SIGPIPE,
	# which pipefail would count
	if "$DUMP" lists -v "$mode" "$pid" 2>/dev/null |
	   grep "^$3 always.*sanitizer run time" >/dev/null; then
		echo "# skipped: $3 refused by $mode (a sanitizer build allows it)"
		return 0
	fi
	shift 2
	out=$("$DUMP" call "$pid" "$@")
	[ "$out" = kill ] || rig_fail "$mode $pid: $*: $out, expected kill"
}

# pasta_confined() - test: the relay keeps nothing of the directory and
# can't open; its reader keeps the directory only, openat() on it only
pasta_confined() {
	local reader n fds out

	follow_start || return 1
	fds=$(files "$FOLLOW_PID")
	follow_new || return 1
	n=$(dir_fds "$FOLLOW_PID" "$FOLLOW_DIR")
	[ "$n" = 0 ] ||
		rig_fail "the relay has $n descriptors into $FOLLOW_DIR" ||
		return 1
	n=$(files "$FOLLOW_PID")
	[ "$n" = "$fds" ] ||
		rig_fail "descriptors other than sockets after the change:" \
			 "$n, before: $fds" || return 1
	refused pasta "$FOLLOW_PID" openat 3 0 $OPEN_FLAGS || return 1

	reader=$(reader_of "$FOLLOW_PID")
	[ -n "$reader" ] || rig_fail "the relay has no reader" || return 1
	n=$(dir_fds "$reader" "$FOLLOW_DIR")
	[ "$n" = 1 ] && [ "$(readlink "/proc/$reader/fd/3")" = "$FOLLOW_DIR" ] ||
		rig_fail "the reader has $n descriptors into $FOLLOW_DIR," \
			 "expected the directory only, at 3" || return 1
	out=$("$DUMP" call "$reader" openat 3 0 $OPEN_FLAGS)
	[ "$out" = allow ] ||
		rig_fail "reader: openat(3, flags $OPEN_FLAGS): $out" || return 1
	refused resolv "$reader" openat 4 0 $OPEN_FLAGS || return 1
	refused resolv "$reader" openat 3 0 2 || return 1
	! grep -q "No Landlock domain for the reader" "$FOLLOW_DIR.log" ||
		rig_fail "the reader has no Landlock domain"
}

# pasta_landlock() - test: a "../" name, allowed by seccomp, is refused by
# Landlock
pasta_landlock() {
	local ns dir other name

	passt_hook_init
	rig_ns_new ns l || return 1
	resolv_dir dir && resolv_write "$dir" $OLD4 || return 1
	other=$dir.other
	mkdir -m 0755 "$other" && resolv_write "$other" $NEW4 || return 1
	name=../$(basename "$other")/resolv.conf
	export FOLLOW_RESOLV_TEST_NAME=$name
	PASTA_BIN=$HOOK_DIR/pasta pasta_start "$ns" "$dir" --follow-host ||
		return 1

	resolv_write "$dir" $OLD4 || return 1
	rig_poll $FOLLOW_BOUND grep -q \
		"Can't read $name again: Permission denied" "$dir.log" ||
		rig_fail "no refusal of $name logged" || return 1
	reaches "$ns" "$COUNT_OLD" ||
		rig_fail "queries to $FWD4 left $OLD4" || return 1
	! grep -q "Host network changed" "$dir.log" ||
		rig_fail "the relay read $name"
}

# pasta_fixed() - test: --no-follow-host keeps the start-up server
pasta_fixed() {
	local ns dir

	follow_start || return 1
	rig_ns_new ns f || return 1
	resolv_dir dir && resolv_write "$dir" $OLD4 || return 1
	pasta_start "$ns" "$dir" --no-follow-host || return 1
	resolv_write "$dir" $NEW4 || return 1
	# The same change, which the following relay saw
	follow_new || return 1
	reaches "$ns" "$COUNT_OLD" ||
		rig_fail "--no-follow-host: queries to $FWD4 left $OLD4"
}

# pasta_bind_mount() - test: a resolver file bind-mounted on its own (as
# ip netns exec does) isn't followed: no reader, said at debug level
pasta_bind_mount() {
	local ns dir

	rig_ns_new ns m || return 1
	resolv_dir dir && resolv_write "$dir" $OLD4 || return 1
	# shellcheck disable=SC2016 # $0 expands in that shell
	rig_relay_mntns 'mount --bind "$0/resolv.conf" /etc/resolv.conf' \
		"$dir" "$RELAY" --runas 0 -d -l "$dir.log" --config-net \
		--dns-forward $FWD4 --netns "$ns" --follow-host || return 1
	rig_poll 5 reaches "$ns" "$COUNT_OLD" ||
		rig_fail "a query to $FWD4 didn't reach $OLD4 at start" ||
		return 1
	grep -q "Not following /etc/resolv.conf: .* mounted on its own" \
		"$dir.log" || rig_fail "not said at debug level" || return 1
	[ -z "$(reader_of "$WRAPPED_PID")" ] ||
		rig_fail "a reader runs for a bind-mounted file"
}

# passt_dhcp_dns() - print the DNS servers a fresh DHCP exchange offers
# $1: namespace
passt_dhcp_dns() {
	local lease=$RIG_TMP/lease.$RANDOM

	passt_dhcp "$1" "$lease" >/dev/null 2>&1 &&
		passt_lease_var "$lease" dns
}

# passt_rdnss() - print the RDNSS servers of a router advertisement
# $1: namespace
passt_rdnss() {
	ip netns exec "$1" "$PROBE" ra "$PASST_TAP" 2>&1
}

# passt_case() - test: DHCP and RDNSS give the new servers
passt_case() {
	local ns dir out

	rig_ns_new ns g || return 1
	resolv_dir dir && resolv_write "$dir" $OLD4 $OLD6 || return 1
	PASST_SOCK=$RIG_TMP/passt.$RANDOM.sock
	wrapped "$PASST" "$dir" --runas 0 -l "$dir.log" -s "$PASST_SOCK" ||
		return 1
	rig_poll 5 test -S "$PASST_SOCK" || rig_fail "no socket" || return 1
	passt_guest_start "$ns" || return 1
	ip -n "$ns" link set "$PASST_TAP" up || return 1

	out=$(passt_dhcp_dns "$ns")
	[ "$out" = $OLD4 ] || rig_fail "DHCP at start: '$out'" || return 1
	out=$(passt_rdnss "$ns")
	[ "$out" = $OLD6 ] || rig_fail "RDNSS at start: '$out'" || return 1

	resolv_write "$dir" $NEW4 $NEW6 || return 1
	rig_poll $FOLLOW_BOUND eval "[ \"\$(passt_dhcp_dns $ns)\" = $NEW4 ]" ||
		rig_fail "DHCP after the change: '$(passt_dhcp_dns "$ns")'" ||
		return 1
	out=$(passt_rdnss "$ns")
	[ "$out" = $NEW6 ] || rig_fail "RDNSS after the change: '$out'"
}

rig_run "pasta: --dns-forward follows the resolver file, replaced by rename and rewritten in place" \
	pasta_rename
rig_run "pasta: the relay can't open, its reader only beneath the directory" \
	pasta_confined
rig_run "pasta, test build: a ../ name seccomp allows, Landlock refuses" \
	pasta_landlock
rig_run "pasta --no-follow-host: the start-up server stays" pasta_fixed
rig_run "pasta: a resolver file mounted on its own isn't followed" \
	pasta_bind_mount
rig_run "passt: DHCP and RDNSS offer the new servers" passt_case
rig_summary
