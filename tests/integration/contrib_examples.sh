#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/contrib_examples.sh - the examples of contrib/ work as
# written
#
# Rig (tests/lib/rig.sh, tests/vm/host.sh): a host namespace of our own; a
# server on its loopback sends a 1 MiB file, which a guest reaches at the
# gateway address. Where the launcher is in Debian 12 (QEMU 7.2), the
# example runs as written, with a real guest (tests/vm/guest_contrib.sh:
# DHCP, then the download, sha256 compared); elsewhere, the relay runs
# with the command line the launcher builds from the example:
#
#   qemu-stream.sh: passt, then QEMU on its socket; the guest downloads
#     the file; passt ends with the guest (--one-off);
#   qemu-vhost-user.sh: the same over vhost-user;
#   qemu-netdev-passt.sh (QEMU 10.1, not in Debian 12): passt with the
#     command line QEMU runs (--quiet ... --pid FILE --fd 3) on one end of
#     a socket pair, QEMU 7.2 on the other (-netdev stream,addr.type=fd):
#     the guest downloads the file;
#   libvirt-interface.xml, libvirt-interface-vhost-user.xml (libvirt's
#     passt support is patched out of Debian 12's): passt with libvirt's
#     command line for the element (libvirt 11.3's: no --mac-addr;
#     --tcp-ports from portForward), as an unprivileged user with no
#     capabilities (from a copy that user can reach, as libvirt's
#     /usr/bin/passt is): it goes to the background
#     with its PID file, runs as that user with no capabilities, listens
#     on its socket and on port 2222;
#   containers.conf (Podman 4.3 has no pasta): pasta with Podman's command
#     line and the file's pasta_options: the namespace gets MTU 1500 and no
#     IPv6 address;
#   pasta@.service (no systemd running here): systemd-analyze verify, then
#     the unit's ExecStart with %i set: pasta goes to the background with
#     its PID file, forwards port 8080, and ends when the namespace is
#     deleted.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"
# shellcheck source=tests/vm/host.sh
. "$(dirname "$0")/../vm/host.sh"

CONTRIB=$RIG_ROOT/contrib
PORT=7011
LIMIT=40
VM_TIMEOUT=120
RUNAS=65534		# stands for libvirt's qemu user

rig_init
passt_find
# setpriv: libvirt's user; fd_pair is Python
rig_need setpriv systemd-analyze python3 || exit 1
rig_host_ns || exit 1
H="ip netns exec $RIG_HOSTNS"

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 1M || exit 1
cat >"$RIG_TMP/vmtest.conf" <<EOF
VT_GW4=$RIG_GW4
VT_PORT_DOWN4=$PORT
VT_LIMIT=$LIMIT
EOF
GUEST_ARGS=()

# image() - test: the guest image
image() {
	vm_image "$RIG_ROOT/tests/vm/guest_contrib.sh" \
		-f "$RIG_TMP/vmtest.conf:/etc/vmtest.conf" || return 1
	GUEST_ARGS=(-m 512M -nographic -no-reboot -kernel "$VM_IMG/vmlinuz"
		    -initrd "$VM_IMG/initramfs.gz"
		    -append "console=ttyS0 quiet panic=-1")
}

# serve() - a one-shot server on the host's loopback sending the file
serve() {
	$H timeout -k 5 "$VM_TIMEOUT" socat -u "FILE:$DATA" \
		"TCP4-LISTEN:$PORT,bind=127.0.0.1,reuseaddr" &
	rig_defer "rig_kill $!"
	rig_wait_listen "$RIG_HOSTNS" "$PORT"
}

# guest_fetch() - wait for the guest's download, check its hash, and for
# QEMU to exit by itself with status 0 once the guest powered off
guest_fetch() {
	vm_result dhcp 60 || return 1
	vm_result fetch "$LIMIT" || return 1
	[ "$(vm_word 1)" = "$(rig_sha "$DATA")" ] ||
		rig_fail "the guest got sha256 $(vm_word 1 | cut -c1-12)..." \
			 "($(vm_word 2) bytes), sent $(rig_sha "$DATA" |
			 cut -c1-12)..." || return 1
	vm_end 60
}

# example() - run a contrib script in the host namespace, like vm_start
# $1: script
# $@: its arguments, then the environment in ENV_ARGS
example() {
	local script=$1
	shift

	VM_CONSOLE=$RIG_TMP/console.$RANDOM.log
	VM_ERR=$VM_CONSOLE.err
	VM_START_MS=$(rig_now_ms)
	$H timeout -k 5 "$VM_TIMEOUT" env PASST="$PASST" QEMU_ACCEL=tcg \
		XDG_RUNTIME_DIR="$RIG_TMP" "${ENV_ARGS[@]}" "$script" "$@" \
		</dev/null >"$VM_CONSOLE" 2>"$VM_ERR" &
	VM_PID=$!
	rig_defer vm_stop
}

# passt_gone() - no passt left serving sockets of $RIG_TMP
passt_gone() {
	! pgrep -f -- "--socket $RIG_TMP/passt" >/dev/null
}

# qemu_stream() - test: contrib/qemu-stream.sh as written
qemu_stream() {
	serve || return 1
	ENV_ARGS=()
	example "$CONTRIB/qemu-stream.sh" "${GUEST_ARGS[@]}"
	guest_fetch || return 1
	rig_poll 5 passt_gone || rig_fail "passt still running after QEMU"
}

# qemu_vhost_user() - test: contrib/qemu-vhost-user.sh as written
qemu_vhost_user() {
	serve || return 1
	# QEMU 7.2 under TCG: no MSI-X on vhost-user (rig-facts)
	ENV_ARGS=(NET_DEVICE_OPTS=vectors=0 MEM=512M)
	example "$CONTRIB/qemu-vhost-user.sh" "${GUEST_ARGS[@]}"
	guest_fetch || return 1
	rig_poll 5 passt_gone || rig_fail "passt still running after QEMU"
}

# netdev_passt() - test: passt as QEMU 10.1's -netdev passt runs it
netdev_passt() {
	local pidfile=$RIG_TMP/netdev.pid cmd

	# The command line of the example's comment, word for word
	cmd=$(sed -n 's/^#   passt \(--quiet .*--fd 3\)$/\1/p' \
	      "$CONTRIB/qemu-netdev-passt.sh")
	[ -n "$cmd" ] || rig_fail "no passt command line in the example" ||
		return 1
	cmd=${cmd/PIDFILE/$pidfile}
	rig_log "passt $cmd"
	serve || return 1
	VM_CONSOLE=$RIG_TMP/console.netdev.log
	VM_ERR=$VM_CONSOLE.err
	VM_START_MS=$(rig_now_ms)
	# shellcheck disable=SC2086 # the command line, split into words
	$H timeout -k 5 "$VM_TIMEOUT" "$VM_DIR/fd_pair" 3 fd=4 \
		"$PASST" $cmd -- qemu-system-x86_64 -accel tcg \
		-device virtio-net-pci,netdev=n0 \
		-netdev stream,id=n0,addr.type=fd,addr.str=4 \
		"${GUEST_ARGS[@]}" </dev/null >"$VM_CONSOLE" 2>"$VM_ERR" &
	VM_PID=$!
	rig_defer vm_stop
	guest_fetch || return 1
	[ -s "$pidfile" ] || rig_fail "no PID in --pid FILE" || return 1
	rig_poll 5 rig_exited "$(cat "$pidfile")" ||
		rig_fail "passt still running after QEMU"
}

# libvirt_cmd() - passt's command line for a libvirt example
# $1: example file
# $2: socket
# $3: PID file
libvirt_cmd() {
	local from to vu=

	from=$(sed -n "s/.*<range start='\([0-9]*\)'.*/\1/p" "$1")
	to=$(sed -n "s/.*<range start='[0-9]*' to='\([0-9]*\)'.*/\1/p" "$1")
	grep -q "type='vhostuser'" "$1" && vu=--vhost-user
	echo ${vu:+"$vu"} --one-off --socket "$2" --pid "$3" \
		--tcp-ports "$from:$to"
}

# libvirt() - test: passt as libvirt runs it for an interface element
# $1: example file
libvirt() {
	local dir=$RIG_TMP/libvirt.$RANDOM sock pidfile cmd rc pid st exe

	# The user can't reach a build in root's home: a copy it can run
	exe=$(rig_user_copy "$PASST" "$RUNAS" 2>&1) ||
		rig_fail "can't copy passt for user $RUNAS: $exe" || return 1
	mkdir -p "$dir" && chown "$RUNAS:$RUNAS" "$dir" && chmod o+x "$RIG_TMP"
	sock=$dir/dom-net0.socket
	pidfile=$dir/dom-net0-passt.pid
	cmd=$(libvirt_cmd "$1" "$sock" "$pidfile")
	rig_log "passt $cmd"
	# shellcheck disable=SC2086 # the command line, split into words
	$H setpriv --reuid=$RUNAS --regid=$RUNAS --clear-groups \
		--inh-caps=-all --bounding-set=-all timeout 30 "$exe" $cmd \
		>"$dir/out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || rig_fail "passt exited with status $rc:" \
		"$(tail -n 2 "$dir/out" | tr '\n' ' ')" || return 1
	pid=$(cat "$pidfile" 2>/dev/null)
	[ -n "$pid" ] && rig_defer "rig_kill $pid"
	[ -n "$pid" ] && ! rig_exited "$pid" ||
		rig_fail "PID file names no running process: '$pid'" ||
		return 1
	st=$(grep -E '^(Uid|CapEff|CapPrm):' "/proc/$pid/status" | tr -s '\t\n' '  ')
	rig_log "daemon $pid: $st"
	grep -q "Uid: $RUNAS " <<<"$st" && grep -q "CapEff: 0000000000000000" \
		<<<"$st" || rig_fail "not $RUNAS without capabilities: $st" ||
		return 1
	[ -S "$sock" ] || rig_fail "no socket $sock" || return 1
	rig_listening "$RIG_HOSTNS" "$(sed -n 's/.*--tcp-ports \([0-9]*\):.*/\1/p' \
		<<<"$cmd")" || rig_fail "forwarded port not listening"
}

# podman() - test: pasta with Podman's command line and pasta_options
podman() {
	local opts ns a

	opts=$(sed -n 's/^pasta_options = \[\(.*\)\]$/\1/p' \
	       "$CONTRIB/containers.conf" | tr -d '",')
	[ -n "$opts" ] || rig_fail "no pasta_options in containers.conf" ||
		return 1
	rig_ns_new ns c || return 1
	# shellcheck disable=SC2086 # options split into words
	pasta_start netns --config-net $opts -t 8080-8080:80-80 \
		--dns-forward 169.254.1.1 -u none -T none -U none --no-map-gw \
		--quiet --netns "/run/netns/$ns" --map-guest-addr 169.254.1.2 ||
		return 1
	a=$(ip -n "$ns" -o addr show dev veth0)
	rig_log "pasta $opts: $(ip -n "$ns" -o link show dev veth0 |
				 grep -o 'mtu [0-9]*'), $(awk '{ print $4 }' \
				 <<<"$a" | tr '\n' ' ')"
	ip -n "$ns" -o link show dev veth0 | grep -q "mtu 1500 " ||
		rig_fail "MTU is not 1500" || return 1
	grep -q "inet $RIG_ADDR4/" <<<"$a" ||
		rig_fail "no IPv4 address" || return 1
	! grep -q "inet6 $RIG_ADDR6/" <<<"$a" ||
		rig_fail "IPv6 configured despite --ipv4-only"
}

# systemd_unit() - test: pasta@.service verifies, its ExecStart works
systemd_unit() {
	local ns unit exec pidfile rc pid

	rig_ns_new ns s || return 1
	unit=$RIG_TMP/pasta@$ns.service
	# The unit as installed, with this build in place of /usr/bin/pasta
	# (verify wants its ExecStart to exist, and it is this build's)
	sed "s|/usr/bin/pasta|$(realpath -s "$RELAY")|" \
		"$CONTRIB/pasta@.service" >"$unit" || return 1
	systemd-analyze verify "$unit" >"$RIG_TMP/verify.out" 2>&1 ||
		rig_fail "systemd-analyze verify: $(tr '\n' ' ' \
			  <"$RIG_TMP/verify.out")" || return 1
	exec=$(sed -n 's/^ExecStart=//p' "$unit")
	exec=${exec//%i/$ns}
	pidfile=/run/pasta-$ns.pid
	rig_defer "rm -f '$pidfile'"
	rig_log "$exec"
	# shellcheck disable=SC2086 # the command line, split into words
	$H timeout 30 $exec >"$RIG_TMP/unit.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || rig_fail "ExecStart exited with status $rc:" \
		"$(tail -n 2 "$RIG_TMP/unit.out" | tr '\n' ' ')" || return 1
	pid=$(cat "$pidfile" 2>/dev/null)
	[ -n "$pid" ] && rig_defer "rig_kill $pid"
	[ -n "$pid" ] && ! rig_exited "$pid" ||
		rig_fail "PIDFile names no running process" || return 1
	rig_listening "$RIG_HOSTNS" 8080 ||
		rig_fail "port 8080 not forwarded" || return 1
	ip netns del "$ns"
	rig_poll 5 rig_exited "$pid" ||
		rig_fail "pasta still running 5 s after the namespace went"
}

rig_run "contrib: guest image" image
if [ -n "$VM_KERNEL" ]; then
	rig_run "contrib/qemu-stream.sh: QEMU 7.2 guest gets 1 MiB through passt, sha256; passt ends with it" \
		qemu_stream
	rig_run "contrib/qemu-vhost-user.sh: the same over vhost-user" \
		qemu_vhost_user
	rig_run "contrib/qemu-netdev-passt.sh: passt as QEMU 10.1 runs it (--fd 3), guest gets 1 MiB, sha256" \
		netdev_passt
else
	rig_log "skipped: qemu-stream.sh, qemu-vhost-user.sh and" \
		"qemu-netdev-passt.sh (no guest image, see its failure above)"
fi
rig_run "contrib/libvirt-interface.xml: passt as libvirt runs it, unprivileged, no capabilities" \
	libvirt "$CONTRIB/libvirt-interface.xml"
rig_run "contrib/libvirt-interface-vhost-user.xml: the same with --vhost-user" \
	libvirt "$CONTRIB/libvirt-interface-vhost-user.xml"
rig_run "contrib/containers.conf: pasta with Podman's command line and pasta_options (MTU 1500, IPv4 only)" \
	podman
rig_run "contrib/pasta@.service: systemd-analyze verify; ExecStart goes to the background, forwards 8080, ends with the namespace" \
	systemd_unit
[ "$RIG_FAILED" -eq 0 ] || vm_console_tail 20
rig_summary
