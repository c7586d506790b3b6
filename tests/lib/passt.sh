# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib/passt.sh - passt mode rig: a namespace as the guest of passt
#
# Theory of operation: sourced after tests/lib/rig.sh, by the
# tests/integration/passt_*.sh scripts. passt runs in the rig's host
# namespace (rig_host_ns) and listens on a UNIX socket in the rig's
# temporary directory. The "guest" is a namespace (rig_target_ns, or any
# other) where tests/tools/tap_bridge creates a tap device and connects it
# to that socket with QEMU's framing: the namespace's own kernel then
# speaks to passt as a VM would. The guest is configured statically (the
# host's addresses, routes via the gateway), or by the test (DHCP, SLAAC).
#
# Environment:
#   PASST	the passt binary (default: passt next to $RELAY)

PASST_TAP=tap0		# tap device name in guest namespaces
PASST_MTU=65520		# MTU of that device once configured statically
PASST_SOCK=		# socket of the relay started by passt_start
PASST_BRIDGE_PID=	# last tap_bridge started by passt_guest_start
PASST_BRIDGE_LOG=

# passt_find() - resolve $PASST, after rig_init; exit if it isn't there
passt_find() {
	PASST=${PASST:-$(dirname "$RELAY")/passt}
	case $PASST in
	/*) ;;
	*)  PASST=$RIG_ROOT/$PASST ;;
	esac
	if [ ! -x "$PASST" ]; then
		echo "FAIL: prerequisites: passt binary $PASST not found" \
		     "(run make, or set PASST=/path/to/passt)"
		exit 1
	fi
}

# passt_init() - resolve $PASST and the bridge tool, after rig_init
passt_init() {
	passt_find
	BRIDGE=$TOOLS_DIR/tap_bridge
	if [ ! -x "$BRIDGE" ]; then
		echo "FAIL: prerequisites: $BRIDGE not built (run make tools)"
		exit 1
	fi
	rig_log "passt: $PASST"
}

# passt_hook_init() - the test build (make hook: build-hook/, the normal
# build plus test-only triggers, doc/design.md), made here unless HOOK_DIR
# names one already; exits on failure. Sets HOOK_DIR.
passt_hook_init() {
	[ -n "$HOOK_DIR" ] && return 0
	HOOK_DIR=$RIG_ROOT/build-hook
	rig_log "make hook (the test build, in $HOOK_DIR)"
	if ! make -s --no-print-directory -C "$RIG_ROOT" hook \
	     >"$RIG_TMP/hook.log" 2>&1; then
		echo "FAIL: prerequisites: make hook failed"
		rig_tail "$RIG_TMP/hook.log" 10
		exit 1
	fi
}

# passt_start() - start passt in the host namespace
# $1: "fg" (-f, in the background of this shell) or "daemon" (-P; exit
#     status 0 must mean the socket is ready)
# $2: socket path (-s)
# $3...: more options (e.g. -t PORTS, -1, -p FILE)
#
# Always passes --runas 0 (and -l in daemon mode). Sets RIG_RELAY_PID,
# RIG_RELAY_LOG, RIG_RELAY_MODE (so that rig_run watches it, and
# rig_relay_stop_check works) and PASST_SOCK. Calls rig_persist: the relay
# outlives the test.
passt_start() {
	local mode=$1 sock=$2 pidfile rc
	shift 2

	rig_persist
	RIG_RELAY_SEQ=$((RIG_RELAY_SEQ + 1))
	RIG_RELAY_LOG=$RIG_TMP/relay.$RIG_RELAY_SEQ.log
	# shellcheck disable=SC2034 # read by rig_relay_stop_check
	RIG_RELAY_MODE=$mode
	PASST_SOCK=$sock
	set -- --runas 0 -s "$sock" "$@"

	if [ "$mode" = daemon ]; then
		# The log goes to syslog once in the background, unless -l
		pidfile=$RIG_TMP/relay.$RIG_RELAY_SEQ.pid
		set -- -l "$RIG_RELAY_LOG" "$@"
		echo "# $PASST -P $pidfile $*" >"$RIG_RELAY_LOG"
		rig_h timeout 30 "$PASST" -P "$pidfile" "$@" \
			>>"$RIG_RELAY_LOG" 2>&1
		rc=$?
		RIG_RELAY_PID=$(cat "$pidfile" 2>/dev/null)
		[ -n "$RIG_RELAY_PID" ] &&
			rig_defer "rig_kill '$RIG_RELAY_PID'"
		[ "$rc" -eq 0 ] ||
			rig_fail "passt (daemon mode) exited with status $rc" ||
			return 1
		[ -n "$RIG_RELAY_PID" ] ||
			rig_fail "passt did not write its PID file" || return 1
		rig_relay_alive ||
			rig_fail "passt pid $RIG_RELAY_PID not running" ||
			return 1
		[ -S "$sock" ] ||
			rig_fail "no socket at $sock when passt returned" ||
			return 1
	else
		echo "# $PASST -f $*" >"$RIG_RELAY_LOG"
		ip netns exec "$RIG_HOSTNS" "$PASST" -f "$@" >>"$RIG_RELAY_LOG" 2>&1 &
		RIG_RELAY_PID=$!
		rig_defer "rig_kill '$RIG_RELAY_PID'"
		rig_poll 5 test -S "$sock" ||
			rig_fail "no socket at $sock after 5 s" || return 1
		rig_relay_alive ||
			rig_fail "passt exited during start-up" || return 1
	fi
	rig_log "passt pid $RIG_RELAY_PID ($mode), log $RIG_RELAY_LOG"
}

# passt_link_exists() - does a link exist in a namespace?
# $1: namespace
# $2: link name
passt_link_exists() {
	ip -n "$1" link show "$2" >/dev/null 2>&1
}

# passt_guest_start() - connect a namespace to the relay through tap_bridge
# $1: namespace
# $2...: more tap_bridge options (e.g. --stall-after-bytes N ...)
#
# The bridge connects to $PASST_SOCK. Waits until its tap device exists,
# and turns off IPv6 router advertisements on it (a static configuration
# would race with them; SLAAC tests turn them back on). Sets
# PASST_BRIDGE_PID and PASST_BRIDGE_LOG; the bridge is killed at cleanup.
passt_guest_start() {
	local ns=$1
	shift

	PASST_BRIDGE_LOG=$RIG_TMP/bridge.$RANDOM.log
	ip netns exec "$ns" "$BRIDGE" "$@" "$PASST_SOCK" "$PASST_TAP" \
		>"$PASST_BRIDGE_LOG" 2>&1 &
	PASST_BRIDGE_PID=$!
	rig_defer "rig_kill '$PASST_BRIDGE_PID'"
	rig_poll 5 passt_link_exists "$ns" "$PASST_TAP" ||
		rig_fail "tap_bridge did not create $PASST_TAP in $ns:" \
			 "$(tr '\n' ' ' <"$PASST_BRIDGE_LOG")" || return 1
	ip netns exec "$ns" sysctl -qw \
		"net.ipv6.conf.$PASST_TAP.accept_ra=0" \
		"net.ipv6.conf.$PASST_TAP.accept_dad=0"
}

# passt_guest_static() - configure the guest's tap device statically
# $1: namespace
#
# The relay's defaults: the host's addresses and prefix lengths, routes via
# the host's gateways, MTU 65520.
passt_guest_static() {
	local ns=$1

	if ! ip -n "$ns" link set "$PASST_TAP" mtu "$PASST_MTU" ||
	   ! ip -n "$ns" addr add "$RIG_ADDR4/24" dev "$PASST_TAP" ||
	   ! ip -n "$ns" addr add "$RIG_ADDR6/64" dev "$PASST_TAP" nodad ||
	   ! ip -n "$ns" link set "$PASST_TAP" up ||
	   ! ip -n "$ns" route add default via "$RIG_GW4" ||
	   ! ip -n "$ns" -6 route add default via "$RIG_GW6"; then
		rig_fail "can't configure $PASST_TAP in $ns"
	fi
}

# passt_dhcp() - busybox udhcpc on the guest's tap device, recording the
# lease in a file (VAR=value lines: ip, subnet, mask, router, mtu, ...)
# without applying it: ip netns exec shares the host's /etc, a client
# script must not touch resolv.conf
# $1: namespace
# $2: lease file
# Return: 0 with a lease (logged), rig_fail otherwise
passt_dhcp() {
	local ns=$1 lease=$2 script=$RIG_TMP/udhcpc.$RANDOM.sh

	cat >"$script" <<EOF
#!/bin/sh
# Record what the server gave, change nothing on the system
[ "\$1" = bound ] || exit 0
for v in ip subnet mask router mtu serverid lease dns domain; do
	eval "echo \$v=\\\$\$v"
done >>"$lease"
EOF
	chmod +x "$script"

	ip netns exec "$ns" timeout 20 busybox udhcpc -i "$PASST_TAP" -n -q \
		-f -t 5 -T 1 -s "$script" >"$RIG_TMP/udhcpc.log" 2>&1 ||
		rig_fail "udhcpc got no lease:" \
			 "$(tail -n 2 "$RIG_TMP/udhcpc.log" | tr '\n' ' ')" ||
		return 1
	[ -s "$lease" ] || rig_fail "client script did not run" || return 1
	rig_log "lease: $(tr '\n' ' ' <"$lease")"
}

# passt_lease_var() - a variable of the lease passt_dhcp() recorded
# $1: lease file
# $2: name
passt_lease_var() {
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

# passt_lease_apply() - configure the guest's tap device from a lease, as
# a DHCP client would: MTU, address and prefix, default route
# $1: namespace
# $2: lease file
passt_lease_apply() {
	local ns=$1 lease=$2

	if ! ip -n "$ns" link set "$PASST_TAP" mtu \
		"$(passt_lease_var "$lease" mtu)" ||
	   ! ip -n "$ns" addr add "$(passt_lease_var "$lease" ip)/$(
		passt_lease_var "$lease" mask)" dev "$PASST_TAP" ||
	   ! ip -n "$ns" route add default via \
		"$(passt_lease_var "$lease" router)"; then
		rig_fail "can't apply the lease"
	fi
}

# passt_guest_stop() - kill the last tap_bridge (the guest disconnects)
passt_guest_stop() {
	[ -n "$PASST_BRIDGE_PID" ] || return 0
	kill -KILL "$PASST_BRIDGE_PID" 2>/dev/null
	wait "$PASST_BRIDGE_PID" 2>/dev/null
	PASST_BRIDGE_PID=
	return 0
}

# passt_same_guest() - the guest's connection is still the first one:
# its bridge (which exits when passt closes the connection) is running,
# passt logged one accepted guest connection and no closed one
# $1: PID of the bridge
# $2: its log
passt_same_guest() {
	local n

	passt_exited "$1" &&
		rig_fail "the bridge exited: passt closed the guest's" \
			 "connection: $(tr '\n' ' ' <"$2")" && return 1
	n=$(grep -c "Accepted guest connection" "$RIG_RELAY_LOG")
	[ "$n" -eq 1 ] ||
		rig_fail "passt accepted $n guest connections, expected 1" ||
		return 1
	! passt_log_has "Guest connection closed" ||
		rig_fail "passt logged: $(grep -m 1 'Guest connection closed' \
			 "$RIG_RELAY_LOG")"
}

# passt_log_has() - check the relay's log for a fixed string
# $1: string
passt_log_has() {
	grep -qF -- "$1" "$RIG_RELAY_LOG"
}

# passt_exited() - has a background child exited? (rig_exited())
# $1: PID
passt_exited() {
	rig_exited "$1"
}
