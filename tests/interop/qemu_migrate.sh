#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/interop/qemu_migrate.sh - live migration of a QEMU 10 guest from
# one passt to another, while its TCP connections stream both ways
#
# Rig: Debian 13's QEMU 10.0 (tests/interop/lib/trixie.sh: it runs in
# that root, reaching this build's passt through vhost-user sockets in the
# rig's directory), the test guest of tests/vm/mkimage running
# tests/vm/guest_migrate.sh, and the two hosts and the peer of
# tests/lib/migrate.sh: a peer namespace behind a bridge with the servers,
# a source and a target host namespace with the same addresses and MAC.
# Two QEMU instances (TCG) in a namespace of their own, where QMP and the
# migration stream use loopback: the source boots the guest, the target
# waits with -incoming. Each has a passt --vhost-user with its
# passt-repair. The guest opens five connections to the peer: a control
# connection, an upload over IPv4 and one over IPv6, a download over each
# (4 MiB each, the links shaped so that they last); every one sends half,
# then waits for the migration to be over. Once each has moved some data
# both ways, QMP's "migrate" moves the guest to the target.
#
# Cases, each run QM_RUNS times in a row (even runs with MSI-X, what QEMU
# gives by default, odd runs with legacy interrupts, vectors=0, as the
# suite's other vhost-user guests: both orders of messages on the target
# were logged alike, kick before call, but the guest's interrupts take
# other paths):
#   same	both passt instances in the source host, as upstream's own
#		test: the source with --migrate-exit --migrate-no-linger,
#		so that the target can take the connections' addresses;
#   two	the source and the target host, the peer's link moved to the
#		target once QEMU reports the migration completed;
#   partial	as "two", but one connection's addresses are taken in the
#		target host before the migration (a connection of its own
#		there, made over loopback: mig_hold()): the target resets
#		that one connection and takes the rest, and the guest goes
#		on.
# Checked: QEMU reports the migration completed and the target runs the
# guest to its end (no hang: every step has a time limit); every transfer
# completes, sha256 compared on the host (uploads as the peer got them,
# downloads as the guest sends them back afterwards); no connection was
# reset (the guest's EstabResets, the peer's, no abort anywhere, the
# target's log: every connection restored); QEMU printed nothing on
# stderr (no "Vhost user backend fails to broadcast fake RARP": SEND_RARP
# is answered). "partial": the upload whose addresses were taken is
# reset (the guest's EstabResets is 1, the peer got only part of it, the
# target's log names it), the rest as above.
#
# A run takes about 20 s (TCG); the acceptance of issue 33 was 20 runs of
# "same" and of "two" in a row (QM_RUNS=20 QM_CASES="same two").
#
# Environment: QM_RUNS (runs of each case, default 2), QM_CASES (default
# "same two partial"), QM_SIZE, QM_RATE, QM_PCAP (capture the peer's
# bridge into RIG_TMP, for RIG_KEEP); INTEROP_ROOT (trixie.sh),
# PASST_REPAIR (tests/lib/migrate.sh).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"
# shellcheck source=tests/lib/migrate.sh
. "$(dirname "$0")/../lib/migrate.sh"
# shellcheck source=tests/vm/host.sh
. "$(dirname "$0")/../vm/host.sh"
# shellcheck source=tests/interop/lib/trixie.sh
. "$(dirname "$0")/lib/trixie.sh"

QM_RUNS=${QM_RUNS:-2}
QM_CASES=${QM_CASES:-same two partial}
SIZE=${QM_SIZE:-4M}
RATE=${QM_RATE:-8mbit}
QM_MEM=256M
LIMIT=60			# seconds for each step of the guest
MOVED_MIN=$((64 * 1024))	# bytes each way before the migration
PORT_CTRL=7300
PORT_UP4=7301
PORT_UP6=7302
PORT_DOWN4=7311
PORT_DOWN6=7312
PORT_BACK4=7321
PORT_BACK6=7322
QMP_SRC=4441
QMP_DST=4442
MIG_PORT=4443
QM_NS=
QM_SRC_PID=
QM_DST_PID=
QM_START_MS=
QM_OUT=		# prefix of a run's QEMU output files (consoles, errors)
DATA=

rig_init
passt_find
mig_init
rig_need tc nstat || exit 1
if ! trixie_ensure "$RIG_TMP/trixie.log"; then
	echo "FAIL: prerequisites: no Debian 13 root for QEMU 10 (see" \
	     "$RIG_TMP/trixie.log)"
	exit 1
fi

# qm_qemu() - start a QEMU 10 instance in the root, in QM_NS
# $1: variable for its PID
# $2: name (src, dst: console NAME.con, errors NAME.err)
# $3: passt's socket
# $4: QMP port
# $5: run number (even: MSI-X, odd: vectors=0)
# $6...: more QEMU options
qm_qemu() {
	local var=$1 name=$2 sock=$3 qmp=$4 run=$5 args
	shift 5

	mapfile -t args < <("$VM_DIR/qemu_args" -m "$QM_MEM" -n vhost-user \
			    -M "$VM_MAC" /img "/rig/${sock#"$RIG_TMP"/}")
	# qemu_args gives QEMU 7.2's vectors=0: the default on even runs
	[ $((run % 2)) -eq 0 ] && args=("${args[@]/,vectors=0/}")
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$QM_NS" timeout -k 5 "$VM_TIMEOUT" \
		bash -c '. "$1"; TRIXIE_BINDS=("$2" "$3"); shift 3
			 trixie_exec "$@"' qemu \
		"$RIG_ROOT/tests/interop/lib/trixie.sh" "$VM_IMG:/img" \
		"$RIG_TMP:/rig" qemu-system-x86_64 "${args[@]}" \
		-qmp "tcp:127.0.0.1:$qmp,server=on,wait=off" "$@" \
		</dev/null >"$QM_OUT.$name.con" 2>"$QM_OUT.$name.err" &
	printf -v "$var" '%s' "$!"
	rig_defer "rig_kill '$!'"
}

# qm_qmp() - one QMP command, its answer printed (events skipped)
# $1: QMP port
# $2: command (JSON)
# Return: 0 with a "return" or "error" line printed, 1 if none came
qm_qmp() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$QM_NS" bash -c '
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf "%s\n%s\n" "{\"execute\": \"qmp_capabilities\"}" \
			"$2" >&3
		n=0
		while IFS= read -r -t 10 line <&3; do
			case $line in
			*\"return\"*|*\"error\"*) n=$((n + 1)) ;;
			*) continue ;;
			esac
			[ $n -lt 2 ] && continue
			echo "$line"
			exit 0
		done
		exit 1' qmp "$1" "$2" 2>/dev/null
}

# qm_status() - a QEMU instance's migration status (query-migrate)
# $1: QMP port
qm_status() {
	qm_qmp "$1" '{"execute": "query-migrate"}' |
		sed -n 's/.*"status": "\([a-z-]*\)".*/\1/p'
}

# qm_field() - a number in a QMP answer
# $1: the answer
# $2: its key
qm_field() {
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" <<<"$1"
}

# qm_migrated() - has the migration ended, either way?
# $1: variable for the status
qm_migrated() {
	local s

	s=$(qm_status "$QMP_SRC")
	printf -v "$1" '%s' "$s"
	case $s in
	completed|failed|cancelled) return 0 ;;
	esac
	return 1
}

# qm_servers() - the peer's servers: receivers of the uploads and of the
# downloads sent back, senders of the downloads (half, then the gate),
# the control connection (sends "go" once the gate exists)
qm_servers() {
	local gate=$RIG_TMP/gate p

	rm -f "$gate" "$RIG_TMP"/*.got
	for p in UP4:TCP4:up4 UP6:TCP6:up6 BACK4:TCP4:back4 BACK6:TCP6:back6
	do
		qm_server "${p#*:}" "$(qm_port "${p%%:*}")" \
			"CREATE:$RIG_TMP/${p##*:}.got"
	done
	qm_server TCP4:down4 "$PORT_DOWN4" "$(qm_feed "$DATA.down4" "$gate")"
	qm_server TCP6:down6 "$PORT_DOWN6" "$(qm_feed "$DATA.down6" "$gate")"
	qm_server TCP4:ctrl "$PORT_CTRL" \
		"SYSTEM:until test -e $gate; do sleep 0.1; done; echo go"
	for p in "$PORT_CTRL" "$PORT_UP4" "$PORT_UP6" "$PORT_DOWN4" \
		 "$PORT_DOWN6" "$PORT_BACK4" "$PORT_BACK6"; do
		rig_wait_listen "$MIG_PEER" "$p" || return 1
	done
}

# qm_port() - a port by its name
# $1: UP4, BACK6...
qm_port() {
	local v=PORT_$1

	echo "${!v}"
}

# qm_server() - a one-shot server in the peer: one connection, one way
# $1: family (TCP4, TCP6) and name, as TCP4:up4
# $2: port
# $3: the other socat address: where data goes (receivers) or comes from
qm_server() {
	local fam=${1%%:*} name=${1#*:} a=$3 b

	b="$fam-LISTEN:$2,reuseaddr"
	case $name in
	up*|back*) a=$b; b=$3 ;;
	esac
	ip netns exec "$MIG_PEER" timeout -k 5 "$VM_TIMEOUT" \
		socat -u "$a" "$b" 2>"$RIG_TMP/srv.$name.err" &
	rig_defer "rig_kill '$!'"
}

# qm_feed() - a socat address sending a file in two halves, the second
# once the gate exists
# $1: file
# $2: gate
qm_feed() {
	local half=$(($(stat -c %s "$1") / 2))

	echo "SYSTEM:head -c $half $1; until test -e $2; do sleep 0.1; done;" \
	     "tail -c +$((half + 1)) $1"
}

# qm_acked() - bytes the peer's sender on a port had acknowledged
# $1: port
qm_acked() {
	ip netns exec "$MIG_PEER" ss -Hti state connected \
		"( sport = :$1 )" 2>/dev/null |
		sed -n 's/.*bytes_acked:\([0-9]*\).*/\1/p' | head -n 1
}

# qm_moving() - has every stream moved MOVED_MIN bytes?
qm_moving() {
	local f p n

	for f in up4 up6; do
		n=$(stat -c %s "$RIG_TMP/$f.got" 2>/dev/null)
		[ "${n:-0}" -ge "$MOVED_MIN" ] || return 1
	done
	for p in "$PORT_DOWN4" "$PORT_DOWN6"; do
		n=$(qm_acked "$p")
		[ "${n:-0}" -ge "$MOVED_MIN" ] || return 1
	done
}

# qm_shape() - slow both directions between the hosts and the peer
# $1: "on" or "off"
qm_shape() {
	local ns dev

	for ns in "$MIG_PEER:psrc" "$MIG_PEER:pdst" "$MIG_SRC:eth0" \
		  "$MIG_DST:eth0"; do
		dev=${ns#*:}
		ns=${ns%%:*}
		ip netns exec "$ns" tc qdisc del dev "$dev" root 2>/dev/null
		[ "$1" = on ] || continue
		mig_shape_dev "$ns" "$dev" "$RATE" || return 1
	done
}

# qm_setup() - the rig of one run: namespaces, servers, relays, helpers
# $1: case
qm_setup() {
	local dst_ns src_opts=()

	mig_net || return 1
	rig_ns_new QM_NS q || return 1
	dst_ns=$MIG_DST
	[ "$1" = same ] && dst_ns=$MIG_SRC
	[ "$1" = same ] && src_opts=(--migrate-exit --migrate-no-linger)
	qm_servers || return 1

	MIG_SRC_LOG=${MIG_SRC_SOCK%.socket}.log
	MIG_DST_LOG=${MIG_DST_SOCK%.socket}.log
	mig_passt MIG_SRC_PID "$MIG_SRC" "$PASST" "$MIG_SRC_SOCK" \
		"$MIG_SRC_LOG" --repair-path "$MIG_SRC_SOCK.repair" \
		"${src_opts[@]}"
	mig_passt MIG_DST_PID "$dst_ns" "$PASST" "$MIG_DST_SOCK" \
		"$MIG_DST_LOG" --repair-path "$MIG_DST_SOCK.repair"
	rig_poll 5 test -S "$MIG_SRC_SOCK" && rig_poll 5 test -S "$MIG_DST_SOCK" ||
		rig_fail "passt did not bind its sockets" || return 1
	mig_helper HELPER_SRC "$MIG_SRC_SOCK.repair" "$RIG_TMP/repair.src.log"
	mig_helper HELPER_DST "$MIG_DST_SOCK.repair" "$RIG_TMP/repair.dst.log"
	rig_poll 5 mig_helper_connected "$HELPER_SRC" &&
		rig_poll 5 mig_helper_connected "$HELPER_DST" ||
		rig_fail "passt-repair did not connect" || return 1
	if [ -n "$QM_PCAP" ]; then
		ip netns exec "$MIG_PEER" dumpcap -q -s 128 -i br0 \
			-w "$RIG_TMP/peer.$RIG_NS_SEQ.pcap" 2>/dev/null &
		rig_defer "rig_kill '$!'"
	fi
	qm_shape on || rig_fail "can't shape the links"
}

# qm_wait() - wait for a guest result on a console
# $1: "src" or "dst"
# $2: result name
# $3: seconds
qm_wait() {
	local pid=$QM_SRC_PID

	[ "$1" = dst ] && pid=$QM_DST_PID
	VM_CONSOLE=$QM_OUT.$1.con VM_PID=$pid vm_wait_line "RESULT $2 " "$3"
}

# qm_migrate() - QMP migrate, wait until it ends; move the network for
# the cases with two hosts
# $1: case
qm_migrate() {
	local status out

	out=$(qm_qmp "$QMP_SRC" "{\"execute\": \"migrate\", \"arguments\":
	      {\"uri\": \"tcp:127.0.0.1:$MIG_PORT\"}}") ||
		rig_fail "no answer to QMP migrate" || return 1
	[[ "$out" == *'"return"'* ]] ||
		rig_fail "QMP migrate: $out" || return 1
	rig_poll "$LIMIT" qm_migrated status ||
		rig_fail "migration not over after $LIMIT s:" \
			 "$(qm_qmp "$QMP_SRC" '{"execute": "query-migrate"}')" ||
		return 1
	[ "$status" = completed ] ||
		rig_fail "migration $status:" \
			 "$(qm_qmp "$QMP_SRC" '{"execute": "query-migrate"}')" \
			 "$(tr '\n' ' ' <"$QM_OUT.dst.err")" || return 1
	[ "$1" = same ] || eval "$MIG_HOOK" ||
		rig_fail "can't move the network to the target" || return 1
	touch "$RIG_TMP/gate"
	qm_shape off
	out=$(qm_qmp "$QMP_SRC" '{"execute": "query-migrate"}')
	rig_log "migration completed: total $(qm_field "$out" total-time) ms," \
		"downtime $(qm_field "$out" downtime) ms"
	qm_qmp "$QMP_SRC" '{"execute": "quit"}' >/dev/null || :
}

# qm_relay_fds() - after a failure: a passt's eventfds, and which of them
# its epoll set watches (kick eventfds are, call eventfds never)
# $1: PID
qm_relay_fds() {
	local fd link efd ev="" watched=""

	for fd in /proc/"$1"/fd/*; do
		link=$(readlink "$fd") || continue
		case $link in
		"anon_inode:[eventfd]")	ev+=" ${fd##*/}" ;;
		"anon_inode:[eventpoll]") efd=${fd##*/} ;;
		esac
	done
	[ -n "$efd" ] && watched=$(awk '/^tfd:/ { printf " %s(%s)", $2, $4 }' \
				   "/proc/$1/fdinfo/$efd")
	rig_log "passt $1: eventfds:${ev:- none}; epoll watches (fd(events)):" \
		"${watched:- nothing}"
}

# qm_results() - the guest's results on the target
# $1: case
qm_results() {
	local con=$QM_OUT.dst.con r line want

	for r in up4 up6 down4 down6 back4 back6 rst; do
		if ! line=$(qm_wait dst "$r" "$LIMIT"); then
			qm_relay_fds "$MIG_DST_PID"
			rig_fail "no result $r from the guest on the target:" \
				 "$(tr -d '\r' <"$con" | grep -v '^$' |
				    tail -n 3 | tr '\n' ' ')"
			return 1
		fi
		# busybox nc exits 0 on a reset: EstabResets tells
		[ "$1" = partial ] && [ "$r" = up4 ] && continue
		[[ "$line" == "RESULT $r ok"* ]] ||
			rig_fail "guest: $line" || return 1
	done
	want=0
	[ "$1" = partial ] && want=1
	[ "$line" = "RESULT rst ok $want" ] ||
		rig_fail "the guest counted ${line#RESULT rst ok } connections" \
			 "reset while established, not $want" || return 1
	if [ "$1" = partial ]; then
		[ "$(stat -c %s "$RIG_TMP/up4.got")" -lt \
		  "$(stat -c %s "$DATA.up4")" ] ||
			rig_fail "the peer got all of the upload that was" \
				 "to be reset" || return 1
	else
		rig_sha_eq "$DATA.up4" "$RIG_TMP/up4.got" || return 1
	fi
	rig_sha_eq "$DATA.up6" "$RIG_TMP/up6.got" &&
	rig_sha_eq "$DATA.down4" "$RIG_TMP/back4.got" &&
	rig_sha_eq "$DATA.down6" "$RIG_TMP/back6.got"
}

# qm_timeline() - log when the guest reached each stage (its uptime)
qm_timeline() {
	local at

	at=$(cat "$QM_OUT.src.con" "$QM_OUT.dst.con" | tr -d '\r' | sed -n \
	     -e 's/^RESULT \(net\|streams\) ok .* at \([0-9]*\) ms.*/\1 \2/p' \
	     -e 's/^RESULT \(up.\|down.\) ok .*ended at \([0-9]*\) ms.*/\1 \2/p' \
	     -e 's/^RESULT back6 ok .* at \([0-9]*\) ms.*/sent-back \1/p' |
	     awk '{ printf "%s%s %.1f s", sep, $1, $2 / 1000; sep = ", " }')
	rig_log "guest's uptime: ${at:-?}"
}

# qm_counters() - no connection reset: the peer took no reset in an
# established connection (TcpEstabResets), and no socket aborted in the
# peer or the hosts (TcpExtTCPAbortOn*). The hosts' own TcpEstabResets
# don't tell: the kernel counts every socket leaving ESTABLISHED for
# CLOSED there, and a source closes its migrated sockets that way (in
# repair mode, sending nothing). A host or the peer may also answer a
# segment of a connection that is over with a reset, as any kernel does
# (the peer, having closed on the target's first ACK of its FIN, gets the
# next ones, sent together when the target's socket went live): those
# are counted in TcpOutRsts and logged, not failed; a reset that mattered
# shows in the peer's TcpEstabResets or in the guest's
qm_counters() {
	local ns n

	for ns in "$MIG_PEER" "$MIG_SRC" "$MIG_DST"; do
		for n in TcpEstabResets TcpExtTCPAbortOnData \
			 TcpExtTCPAbortOnClose TcpExtTCPAbortOnTimeout; do
			[ "$n" = TcpEstabResets ] && [ "$ns" != "$MIG_PEER" ] &&
				continue
			[ "$(rig_nstat "$ns" "$n")" = 0 ] ||
				rig_fail "$n is $(rig_nstat "$ns" "$n") in" \
					 "$ns: $(mig_rst_counters "$ns")" ||
				return 1
		done
		n=$(rig_nstat "$ns" TcpOutRsts)
		[ "$n" = 0 ] ||
			rig_log "$ns answered $n segments of connections that" \
				"were over with a reset (TcpOutRsts)"
	done
}

# qm_logs() - what the relays and QEMU said
# $1: case
qm_logs() {
	local want="Migration: 5 TCP connections restored$"

	[ "$1" = partial ] &&
		want="Migration: 4 TCP connections restored, 1 reset"
	grep -q "$want" "$MIG_DST_LOG" ||
		rig_fail "the target did not log \"$want\":" \
			 "$(grep -m 3 'Migration\|TCP flow' "$MIG_DST_LOG" |
			    tr '\n' ' ')" || return 1
	if [ "$1" = partial ]; then
		grep -q "TCP connection .*:$PORT_UP4): can't restore it here" \
			"$MIG_DST_LOG" ||
			rig_fail "the target did not say which connection" \
				 "it reset" || return 1
	fi
	! grep -qi 'vhost\|error' "$QM_OUT.src.err" "$QM_OUT.dst.err" ||
		rig_fail "QEMU: $(cat "$QM_OUT.src.err" "$QM_OUT.dst.err" |
				 tr '\n' ' ')"
}

# qm_run() - test: one migration of the guest, streams both ways
# $1: case
# $2: run number
qm_run() {
	local case=$1 run=$2

	QM_OUT=$RIG_TMP/$case.$run
	qm_setup "$case" || return 1
	QM_START_MS=$(rig_now_ms)
	qm_qemu QM_SRC_PID src "$MIG_SRC_SOCK" "$QMP_SRC" "$run"
	qm_qemu QM_DST_PID dst "$MIG_DST_SOCK" "$QMP_DST" "$run" \
		-incoming "tcp:127.0.0.1:$MIG_PORT"
	qm_wait src net "$LIMIT" >/dev/null &&
		qm_wait src streams "$LIMIT" >/dev/null ||
		rig_fail "the guest did not start its streams:" \
			 "$(tr -d '\r' <"$QM_OUT.src.con" | grep RESULT |
			    tail -n 2 | tr '\n' ' ') $(head -c 300 \
			    "$QM_OUT.src.err")" || return 1
	if ! rig_poll "$LIMIT" qm_moving; then
		ip netns exec "$MIG_PEER" ss -tni >"$RIG_TMP/ss.peer.txt"
		rig_fail "the streams did not move $MOVED_MIN bytes each" \
			 "within $LIMIT s: uploads $(stat -c %s \
			 "$RIG_TMP"/up?.got | tr '\n' ' '), downloads" \
			 "$(qm_acked "$PORT_DOWN4") $(qm_acked "$PORT_DOWN6")"
		return 1
	fi
	if [ "$case" = partial ]; then
		mig_hold "$PORT_UP4" "$VM_TIMEOUT" || return 1
		rig_log "target host: $RIG_ADDR4:$MIG_HELD ->" \
			"$MIG_PEER4:$PORT_UP4 taken before the migration"
	fi

	qm_migrate "$case" || return 1
	qm_results "$case" || return 1
	qm_timeline
	qm_counters || [ "$case" = partial ] || return 1
	qm_logs "$case" || return 1
	VM_CONSOLE=$QM_OUT.dst.con
	VM_PID=$QM_DST_PID
	VM_START_MS=$QM_START_MS
	vm_end 30
}

DATA=$RIG_TMP/data
for f in up4 up6 down4 down6; do
	rig_random_file "$DATA.$f" "$SIZE" || exit 1
done
CONF=$RIG_TMP/vmtest.conf
cat >"$CONF" <<EOF
VT_GW4=$RIG_GW4
VT_PEER4=$MIG_PEER4
VT_PEER6=$MIG_PEER6
VT_PORT_CTRL=$PORT_CTRL
VT_PORT_UP4=$PORT_UP4
VT_PORT_UP6=$PORT_UP6
VT_PORT_DOWN4=$PORT_DOWN4
VT_PORT_DOWN6=$PORT_DOWN6
VT_PORT_BACK4=$PORT_BACK4
VT_PORT_BACK6=$PORT_BACK6
VT_LIMIT=$LIMIT
EOF
rig_run "QEMU 10 migration: guest image" \
	vm_image "$RIG_ROOT/tests/vm/guest_migrate.sh" \
	-f "$CONF:/etc/vmtest.conf" -f "$DATA.up4:/up4.bin" \
	-f "$DATA.up6:/up6.bin"
[ -n "$VM_KERNEL" ] || rig_summary

for case in $QM_CASES; do
	case $case in
	same)	what="source and target passt on the same host (--migrate-exit --migrate-no-linger)" ;;
	two)	what="source and target on two hosts, the network moved" ;;
	partial) what="two hosts, one connection's addresses taken on the target: that one reset, the rest moved" ;;
	*)	echo "FAIL: QM_CASES: unknown case $case"; continue ;;
	esac
	for run in $(seq "$QM_RUNS"); do
		rig_run "QEMU 10 migration ($case, run $run of $QM_RUNS): $what, 2 uploads and 2 downloads streaming, sha256" \
			qm_run "$case" "$run"
	done
done
rig_summary
