# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib/migrate.sh - a live migration rig: two hosts with the same
# addresses, a peer between them, a guest moving from one to the other
#
# Theory of operation: sourced after tests/lib/rig.sh and tests/lib/passt.sh
# by the migration scripts. Four namespaces of our own:
#   - the peer (MIG_PEER): a bridge with 192.0.2.3/24 and 2001:db8::3/64,
#     where the servers the guest talks to run; two ports, one to each
#     host, the target's down until the network moves over;
#   - the source host (MIG_SRC) and the target host (MIG_DST): each a veth
#     to the peer's bridge with the same addresses as the rig's host
#     (192.0.2.2/24, 2001:db8::2/64, default routes via .1 and ::1) and
#     the same MAC address, as a migrated VM's host looks to the network;
#     passt --vhost-user runs in each, and a passt-repair for each;
#   - the guest (MIG_GUEST): tests/tools/vu_bridge's tap device, its
#     kernel the guest's, the host's addresses as passt gives them, routes
#     to the peer's addresses via passt's gateway.
# vu_bridge speaks vhost-user to the source, and on SIGUSR2 migrates the
# device to the target as QEMU would (see vu_bridge.c), running
# MIG_HOOK once the target has the state: it moves the network (the
# source's bridge port goes down, the target's up), the peer's neighbour
# entries stay right as the MAC address is the same.
#
# mig_hold() takes a connection's addresses and ports in the target host
# beforehand, for a target that can restore all connections but that one.
#
# Environment:
#   PASST_REPAIR	the passt-repair helper (default: next to $PASST)
#   MIG_DST_PASST	passt binary of the target (default: $PASST)
#   MIG_SRC_PASST	passt binary of the source (default: $PASST)
#   MIG_DAEMON	if set, both passt go to the background (-P, -l) as
#		launchers run them, each the first process of a PID
#		namespace of its own, instead of -f

MIG_PEER4=192.0.2.3
MIG_PEER6=2001:db8::3
MIG_HOST_MAC=02:00:00:00:00:02
MIG_SRC=
MIG_DST=
MIG_PEER=
MIG_GUEST=
MIG_HOOK=
MIG_SRC_SOCK=
MIG_DST_SOCK=
# shellcheck disable=SC2034 # read by the scripts that source this
MIG_SRC_PID=
MIG_DST_PID=
MIG_SRC_LOG=
MIG_DST_LOG=
MIG_HELD=		# the local port mig_hold() took
MIG_PASST_OPTS=()	# options for both passt instances (e.g. -t PORTS)
# vu_bridge as QEMU 10 is: its order of messages on the target, event
# indices, the receive queue looked at on interrupts (see vu_bridge.c)
MIG_BRIDGE_OPTS=(--qemu-order --event-idx)

# mig_init() - resolve the binaries, after rig_init and passt_init
mig_init() {
	PASST_REPAIR=${PASST_REPAIR:-$(dirname "$PASST")/passt-repair}
	MIG_SRC_PASST=${MIG_SRC_PASST:-$PASST}
	MIG_DST_PASST=${MIG_DST_PASST:-$PASST}
	if [ ! -x "$PASST_REPAIR" ]; then
		echo "FAIL: prerequisites: $PASST_REPAIR not found (run make," \
		     "or set PASST_REPAIR)"
		exit 1
	fi
	rig_log "passt-repair: $PASST_REPAIR"
	rig_log "source passt: $MIG_SRC_PASST, target passt: $MIG_DST_PASST"
}

# mig_host() - one host namespace: a veth to the peer's bridge
# $1: namespace
# $2: name of the peer's end (port of the bridge)
mig_host() {
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 &&
	ip -n "$1" link add eth0 address "$MIG_HOST_MAC" type veth \
		peer name "$2" netns "$MIG_PEER" &&
	ip -n "$1" link set eth0 up &&
	ip -n "$1" addr add "$RIG_ADDR4/24" dev eth0 &&
	ip -n "$1" addr add "$RIG_ADDR6/64" dev eth0 nodad &&
	ip -n "$1" route add default via "$RIG_GW4" &&
	ip -n "$1" -6 route add default via "$RIG_GW6" &&
	ip -n "$MIG_PEER" link set "$2" master br0 || return 1
}

# mig_net() - the four namespaces, the peer reaching the source only
mig_net() {
	rig_ns_new MIG_PEER p || return 1
	rig_ns_new MIG_SRC s || return 1
	rig_ns_new MIG_DST d || return 1
	rig_ns_new MIG_GUEST g || return 1
	ip netns exec "$MIG_PEER" sysctl -qw \
		net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 &&
	ip -n "$MIG_PEER" link add br0 type bridge &&
	ip -n "$MIG_PEER" link set br0 up &&
	ip -n "$MIG_PEER" addr add "$MIG_PEER4/24" dev br0 &&
	ip -n "$MIG_PEER" addr add "$MIG_PEER6/64" dev br0 nodad ||
		rig_fail "can't set up the peer's bridge" || return 1
	mig_host "$MIG_SRC" psrc && mig_host "$MIG_DST" pdst ||
		rig_fail "can't set up the host namespaces" || return 1
	ip -n "$MIG_PEER" link set psrc up || return 1
	MIG_HOOK="ip -n $MIG_PEER link set psrc down &&"
	MIG_HOOK+=" ip -n $MIG_PEER link set pdst up"
	# One rig after another in a script: names of their own
	MIG_SRC_SOCK=$RIG_TMP/src.$RIG_NS_SEQ.socket
	MIG_DST_SOCK=$RIG_TMP/dst.$RIG_NS_SEQ.socket
}

# mig_shape_dev() - slow a device down (tbf: no fair queueing qdisc in
# this kernel)
# $1: namespace
# $2: device
# $3: rate
mig_shape_dev() {
	ip netns exec "$1" tc qdisc add dev "$2" root tbf rate "$3" \
		burst 256kb latency 100ms
}

# mig_shape() - slow both ways down, so that transfers last
# $1: rate
mig_shape() {
	mig_shape_dev "$MIG_PEER" psrc "$1" &&
	mig_shape_dev "$MIG_PEER" pdst "$1" &&
	mig_shape_dev "$MIG_GUEST" "$PASST_TAP" "$1"
}

# mig_passt() - start passt --vhost-user in a host namespace
# $1: variable for its PID
# $2: namespace
# $3: binary
# $4: socket
# $5: log
# $6...: more options
mig_passt() {
	local var=$1 ns=$2 bin=$3 sock=$4 log=$5
	shift 5

	if [ -n "$MIG_DAEMON" ]; then
		ip netns exec "$ns" "$bin" -P "$log.pid" -l "$log" --runas 0 \
			--vhost-user -s "$sock" "$@" >"$log.out" 2>&1 ||
			cat "$log.out" >>"$log"
		printf -v "$var" '%s' "$(cat "$log.pid" 2>/dev/null)"
		rig_defer "rig_kill '${!var}'"
		return 0
	fi
	echo "# $bin -f --runas 0 --vhost-user -s $sock $*" >"$log"
	ip netns exec "$ns" "$bin" -f --runas 0 --vhost-user -s "$sock" \
		"$@" >>"$log" 2>&1 &
	printf -v "$var" '%s' "$!"
	rig_defer "rig_kill '$!'"
}

# mig_relays() - both passt instances, and the guest on the source
# $1...: more vu_bridge options
mig_relays() {
	rig_persist
	MIG_SRC_LOG=${MIG_SRC_SOCK%.socket}.log
	MIG_DST_LOG=${MIG_DST_SOCK%.socket}.log
	mig_passt MIG_SRC_PID "$MIG_SRC" "$MIG_SRC_PASST" "$MIG_SRC_SOCK" \
		"$MIG_SRC_LOG" --repair-path "$MIG_SRC_SOCK.repair" \
		"${MIG_PASST_OPTS[@]}"
	mig_passt MIG_DST_PID "$MIG_DST" "$MIG_DST_PASST" "$MIG_DST_SOCK" \
		"$MIG_DST_LOG" --repair-path "$MIG_DST_SOCK.repair" \
		"${MIG_PASST_OPTS[@]}"
	rig_poll 5 test -S "$MIG_SRC_SOCK" ||
		rig_fail "no source socket after 5 s" || return 1
	rig_poll 5 test -S "$MIG_DST_SOCK" ||
		rig_fail "no target socket after 5 s" || return 1

	# shellcheck disable=SC2034 # read by passt_guest_start
	PASST_SOCK=$MIG_SRC_SOCK
	BRIDGE=$VU_BRIDGE passt_guest_start "$MIG_GUEST" \
		--migrate-to "$MIG_DST_SOCK" --migrate-hook "$MIG_HOOK" \
		"${MIG_BRIDGE_OPTS[@]}" "$@" || return 1
	passt_guest_static "$MIG_GUEST" || return 1
	ip -n "$MIG_GUEST" route add "$MIG_PEER4/32" via "$RIG_GW4" &&
	ip -n "$MIG_GUEST" -6 route add "$MIG_PEER6/128" via "$RIG_GW6" ||
		rig_fail "can't route to the peer in the guest" || return 1
	# shellcheck disable=SC2034 # read by rig_relay_stop_check
	RIG_RELAY_LOG=$MIG_SRC_LOG
	rig_poll 5 grep -q "device running" "$PASST_BRIDGE_LOG" ||
		rig_fail "the source's device did not start" || return 1
}

# mig_helper() - start passt-repair for a passt
# $1: variable for its PID
# $2: its repair socket
# $3: log
mig_helper() {
	"$PASST_REPAIR" "$2" >"$3" 2>&1 &
	printf -v "$1" '%s' "$!"
	rig_defer "rig_kill '$!'"
}

# mig_helper_connected() - is a passt-repair running and connected to its
# passt? (a connected UNIX socket of its own, in /proc/PID/net/unix)
# $1: its PID
mig_helper_connected() {
	local fd link

	kill -0 "$1" 2>/dev/null || return 1
	for fd in /proc/"$1"/fd/*; do
		link=$(readlink "$fd") || continue
		[[ "$link" == socket:* ]] || continue
		awk -v ino="${link//[^0-9]/}" '$7 == ino && $6 == "03" { f = 1 }
			END { exit !f }' "/proc/$1/net/unix" && return 0
	done
	return 1
}

# mig_socks() - TCP sockets of a host namespace to the peer's ports, in
# any state but closed: one "port inode bytes-received" line each, by port
# $1: namespace
# $2: first port
# $3: number of ports
mig_socks() {
	ip netns exec "$1" ss -HtineO state connected \
		"( dport >= :$2 and dport <= :$(($2 + $3 - 1)) )" 2>/dev/null |
	awk '{ n = split($5, a, ":"); ino = 0; b = 0
	       for (i = 6; i <= NF; i++) {
		       if ($i ~ /^ino:/) ino = substr($i, 5)
		       if ($i ~ /^bytes_received:/) b = substr($i, 16)
	       }
	       print a[n], ino, b }' | sort -n
}

# mig_polled() - inodes of the sockets a process watches (its epoll sets,
# /proc/PID/fdinfo), one a line
# $1: PID
# Return: 1 if it has no epoll set we can see
mig_polled() {
	local fd link efd tfd
	local -A ino=()
	local -a epolls=()

	for fd in /proc/"$1"/fd/*; do
		link=$(readlink "$fd") || continue
		case "$link" in
		"anon_inode:[eventpoll]")	epolls+=("${fd##*/}") ;;
		socket:*)			ino[${fd##*/}]=${link//[^0-9]/} ;;
		esac
	done
	[ "${#epolls[@]}" -gt 0 ] || return 1
	for efd in "${epolls[@]}"; do
		while read -r tfd; do
			[ -n "${ino[$tfd]}" ] && echo "${ino[$tfd]}"
		done < <(awk '/^tfd:/ { print $2 }' "/proc/$1/fdinfo/$efd")
	done
	return 0
}

# mig_ours() - is this passt binary ours (its log lines, its state format)?
# $1: binary
mig_ours() {
	[ "$1" = "$PASST" ]
}

# mig_active() - active TCP connections a passt reports (SIGUSR1)
# $1: PID
# $2: log
mig_active() {
	local before

	before=$(grep -c 'tcp: conns_out=' "$2")
	kill -USR1 "$1" || return 1
	rig_poll 5 rig_log_grew "$2" 'tcp: conns_out=' "$before" || return 1
	grep 'tcp: conns_out=' "$2" | tail -n 1 | sed 's/.* active=//'
}

# mig_dump_socks() - after a failure: every namespace's TCP sockets with
# their windows and queues (ss -tinm), and where a frame could have been
# dropped (qdisc and link counters, nstat), into files in RIG_TMP for
# RIG_KEEP
mig_dump_socks() {
	local ns

	for ns in "$MIG_PEER" "$MIG_GUEST" "$MIG_SRC" "$MIG_DST"; do
		ip netns exec "$ns" ss -tinmaO >"$RIG_TMP/ss.$ns.txt" 2>&1
		{
			ip netns exec "$ns" tc -s qdisc show
			ip netns exec "$ns" ip -s -s link show
			ip netns exec "$ns" nstat -az
		} >"$RIG_TMP/drops.$ns.txt" 2>&1
	done
	[ -z "$MIG_DST_PID" ] || kill -USR1 "$MIG_DST_PID" 2>/dev/null
}

# mig_rst_counters() - a namespace's counters of resets and aborts that
# are not 0, on one line (which kind of reset it was)
# $1: namespace
mig_rst_counters() {
	ip netns exec "$1" nstat -asz 2>/dev/null |
		awk '$1 ~ /Rst|Reset|Abort|MD5|BeyondWindow/ && $2 != 0 {
			printf "%s=%s ", $1, $2 }'
}

# mig_no_rst() - no connection was reset: no namespace of the rig took a
# reset in an established connection (TcpEstabResets), neither end sent
# one (the guest and the peer: TcpOutRsts), and no socket of the hosts
# aborted (TcpExtTCPAbortOn*: closed with data unread, timed out...). A
# host may answer a segment for a connection that is over, as any kernel
# does (a duplicate ACK arriving after its last ACK, the peer in
# TIME_WAIT): those resets are counted in TcpOutRsts and logged, not
# failed
mig_no_rst() {
	local ns n

	for ns in "$MIG_PEER" "$MIG_GUEST" "$MIG_SRC" "$MIG_DST"; do
		for n in TcpEstabResets TcpExtTCPAbortOnData \
			 TcpExtTCPAbortOnClose TcpExtTCPAbortOnMemory \
			 TcpExtTCPAbortOnTimeout TcpExtTCPAbortOnLinger; do
			[ "$(rig_nstat "$ns" "$n")" = 0 ] ||
				rig_fail "$n is $(rig_nstat "$ns" "$n") in" \
					 "$ns; its other counters of resets" \
					 "and aborts: $(mig_rst_counters "$ns")" ||
				return 1
		done
	done
	for ns in "$MIG_PEER" "$MIG_GUEST"; do
		[ "$(rig_nstat "$ns" TcpOutRsts)" = 0 ] ||
			rig_fail "TcpOutRsts is $(rig_nstat "$ns" TcpOutRsts)" \
				 "in $ns: $(mig_rst_counters "$ns")" || return 1
	done
	for ns in "$MIG_SRC" "$MIG_DST"; do
		n=$(rig_nstat "$ns" TcpOutRsts)
		[ "$n" = 0 ] ||
			rig_log "$ns answered $n segments of connections that" \
				"were over with a reset (TcpOutRsts)"
	done
}

# mig_hold() - take, in the target host, the addresses and ports of a
# connection of the source to the peer (IPv4): the peer's address on the
# target's loopback for a moment, a connection from the source socket's
# address and port to it, kept open, the address removed again. The
# target's socket for that connection can't be connected then
# (EADDRNOTAVAIL), as with the source's own socket on the same host
# $1: the peer's port of the connection
# $2: seconds to keep it
# Sets MIG_HELD to the local port taken
mig_hold() {
	local local_addr lport

	local_addr=$(ip netns exec "$MIG_SRC" ss -Htn state established \
		     "( dport = :$1 )" | awk '{ print $3; exit }')
	lport=${local_addr##*:}
	[ -n "$lport" ] ||
		rig_fail "no socket to port $1 in the source" || return 1
	ip -n "$MIG_DST" addr add "$MIG_PEER4/32" dev lo || return 1
	ip netns exec "$MIG_DST" timeout -k 5 "$2" socat -u \
		"TCP4-LISTEN:$1,bind=$MIG_PEER4,reuseaddr" \
		SYSTEM:"sleep $2" 2>/dev/null &
	rig_defer "rig_kill '$!'"
	rig_wait_listen "$MIG_DST" "$1" || return 1
	ip netns exec "$MIG_DST" timeout -k 5 "$2" socat -u \
		SYSTEM:"sleep $2" "TCP4:$MIG_PEER4:$1,bind=$RIG_ADDR4:$lport" \
		2>/dev/null &
	rig_defer "rig_kill '$!'"
	rig_poll 5 mig_held "$lport" "$1" ||
		rig_fail "can't take port $lport in the target" || return 1
	ip -n "$MIG_DST" addr del "$MIG_PEER4/32" dev lo || return 1
	# shellcheck disable=SC2034 # read by the scripts that source this
	MIG_HELD=$lport
}

# mig_held() - is the connection of mig_hold() established?
# $1: its local port
# $2: the peer's port
mig_held() {
	ip netns exec "$MIG_DST" ss -Htn state established \
		"( sport = :$1 and dport = :$2 )" | grep -q .
}
