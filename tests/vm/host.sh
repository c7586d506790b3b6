# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/vm/host.sh - host side of the VM tests: build, boot, read results
#
# Theory of operation: sourced by an integration script after
# tests/lib/rig.sh and rig_init. vm_image builds the guest with
# tests/vm/mkimage (kernel cached in build/vm, initramfs in the rig's
# temporary directory); vm_start boots it in QEMU (TCG, the command line
# of tests/vm/qemu_args) under a hard timeout, with the serial console
# written to a file; vm_result waits for one "RESULT NAME ok|fail ..."
# line of the guest (tests/vm/guest_lib.sh) and gives up as soon as QEMU
# has exited. QEMU's PID is on the rig's
# cleanup stack: it cannot outlive the script.
#
# Environment:
#   VM_CACHE	kernel cache for mkimage (default build/vm)
#   VM_TIMEOUT	seconds QEMU may run in all (default 150)
#   VM_NETDEV	how the guest's network reaches passt: "stream" (default,
#		-netdev stream), "none" (no network device: tests that
#		need only the guest's kernel), "vhost-user" (-chardev socket on the
#		path, -netdev vhost-user, guest memory shared through a
#		memfd), "vhost-user-fd" (the same, on an inherited
#		connected socket: vm_start's argument is its number)
#   VM_WRAP	command (words) QEMU's command line is appended to, e.g.
#		a helper that starts passt first (default: none)
#   VM_DEV_OPTS	more virtio-net-pci properties, comma-separated, e.g.
#		csum=off (default: none)

VM_DIR=$RIG_ROOT/tests/vm
VM_CACHE=${VM_CACHE:-$RIG_ROOT/build/vm}
VM_TIMEOUT=${VM_TIMEOUT:-150}
VM_MAC=52:54:00:12:34:56
VM_MEM=512M
VM_NETDEV=${VM_NETDEV:-stream}
VM_WRAP=${VM_WRAP:-}
VM_PID=
VM_CONSOLE=
VM_ERR=
VM_IMG=
VM_KERNEL=
VM_START_MS=
VM_RESULT=

# vm_image() - test step: build the guest image
# $1: test script for the guest (/test.sh)
# $2...: more mkimage options (e.g. -f SRC:DEST)
# Sets VM_IMG (directory with vmlinuz, initramfs.gz) and VM_KERNEL.
vm_image() {
	local test=$1 log
	shift

	VM_IMG=$RIG_TMP/vm
	log=$RIG_TMP/mkimage.log
	if ! "$VM_DIR/mkimage" -c "$VM_CACHE" "$@" "$VM_IMG" "$test" \
	     >"$log" 2>&1; then
		rig_tail "$log" 10
		rig_fail "can't build the guest image:" \
			 "$(grep '^mkimage:' "$log" | tail -n 1)"
		return 1
	fi
	VM_KERNEL=$(tail -n 1 "$log")
	rig_log "guest: $VM_KERNEL"
}

# vm_start() - boot the guest, its network on a passt socket
# $1: socket path (passt must listen already: QEMU 7.2 does not retry), or
#     descriptor number with VM_NETDEV=vhost-user-fd
#
# QEMU runs in the rig's host namespace (it needs no network there), under
# timeout VM_TIMEOUT. Sets VM_PID, VM_CONSOLE, VM_ERR and VM_START_MS; the
# process is killed at cleanup.
vm_start() {
	local args wrap

	if ! mapfile -t args < <("$VM_DIR/qemu_args" -m "$VM_MEM" \
				 -n "$VM_NETDEV" -o "${VM_DEV_OPTS:-}" \
				 -M "$VM_MAC" "$VM_IMG" "$1") ||
	   [ ${#args[@]} -eq 0 ]; then
		rig_fail "tests/vm/qemu_args failed"
		return 1
	fi
	read -r -d '' -a wrap <<<"$VM_WRAP"	# words over several lines
	VM_CONSOLE=$RIG_TMP/console.log
	VM_ERR=$RIG_TMP/qemu.err
	VM_START_MS=$(rig_now_ms)
	ip netns exec "$RIG_HOSTNS" timeout -k 5 "$VM_TIMEOUT" \
		"${wrap[@]}" qemu-system-x86_64 "${args[@]}" \
		</dev/null >"$VM_CONSOLE" 2>"$VM_ERR" &
	VM_PID=$!
	rig_defer vm_stop
	rig_log "QEMU pid $VM_PID, console $VM_CONSOLE"
}

# vm_stop() - kill QEMU if it still runs (cleanup)
vm_stop() {
	[ -n "$VM_PID" ] || return 0
	rig_kill "$VM_PID"
	VM_PID=
}

# vm_exited() - has QEMU exited?
vm_exited() {
	[ -z "$VM_PID" ] || rig_exited "$VM_PID"
}

# vm_line() - print the console's first complete line with a prefix, from
# the prefix on
# $1: prefix (fixed string, e.g. "RESULT dhcp ")
# Return: 0 if there is one
#
# The serial console ends lines with "\r\n": a line without "\r" is still
# being written. A kernel message may come first on the same line: it is
# cut off.
vm_line() {
	awk -v p="$1" '/\r$/ && (i = index($0, p)) {
		s = substr($0, i); sub(/\r$/, "", s); print s; found = 1; exit
	} END { exit !found }' "$VM_CONSOLE" 2>/dev/null
}

# vm_wait_line() - wait for a console line starting with a prefix
# $1: prefix
# $2: seconds to wait at most (default: until QEMU's own timeout)
# Return: 0 with the line printed, 1 if QEMU exited or time ran out
vm_wait_line() {
	local prefix=$1 limit=${2:-$VM_TIMEOUT} i=0 line

	while :; do
		line=$(vm_line "$prefix")
		if [ -n "$line" ]; then
			echo "$line"
			return 0
		fi
		vm_exited && break
		[ $i -ge $((limit * 10)) ] && break
		sleep 0.1
		i=$((i + 1))
	done
	# The line may have come just before QEMU exited
	line=$(vm_line "$prefix")
	[ -n "$line" ] && echo "$line" && return 0
	return 1
}

# vm_why_stopped() - why no more lines come from the guest
vm_why_stopped() {
	local err

	if ! vm_exited; then
		echo "the guest did not report it in time"
		return 0
	fi
	err=$(tr '\n' ' ' <"$VM_ERR" 2>/dev/null | cut -c 1-300)
	if vm_line 'VMTEST done' >/dev/null; then
		echo "the guest finished without reporting it"
	elif grep -q 'Kernel panic' "$VM_CONSOLE"; then
		echo "the guest kernel panicked"
	else
		echo "QEMU exited (after $(( ($(rig_now_ms) - VM_START_MS) /
					     1000 )) s)${err:+: $err}"
	fi
}

# vm_result() - test step: wait for a guest result, which must be "ok"
# $1: result name
# $2: seconds to wait at most (default: until QEMU's own timeout)
# Sets VM_RESULT to the details after "ok" (or the reason after "fail").
vm_result() {
	local name=$1 line rest

	VM_RESULT=
	if ! line=$(vm_wait_line "RESULT $name " "$2"); then
		rig_fail "no result '$name' from the guest: $(vm_why_stopped)"
		return 1
	fi
	rest=${line#"RESULT $name "}
	case $rest in
	"ok "*|ok)
		VM_RESULT=${rest#ok}
		VM_RESULT=${VM_RESULT# }
		return 0 ;;
	"fail "*)
		VM_RESULT=${rest#fail }
		rig_fail "guest: $VM_RESULT"
		return 1 ;;
	esac
	rig_fail "garbled result line: $line"
}

# vm_field() - a KEY=VALUE field of the last result
# $1: key
vm_field() {
	tr ' ' '\n' <<<"$VM_RESULT" | sed -n "s/^$1=//p" | head -n 1
}

# vm_word() - the N-th word of the last result's details
# $1: N (1: first)
vm_word() {
	awk -v n="$1" '{ print $n }' <<<"$VM_RESULT"
}

# vm_console_tail() - show the end of the guest's console
# $1: number of lines (default 20)
vm_console_tail() {
	[ -s "$VM_CONSOLE" ] || return 0
	echo "#   --- last lines of the guest's console:"
	tr -d '\r' <"$VM_CONSOLE" | tail -n "${1:-20}" | sed 's/^/#   | /'
}

# vm_end() - test step: the guest finishes and QEMU exits by itself
# $1: seconds to wait at most
vm_end() {
	local i=0 rc

	while ! vm_exited; do
		if [ $i -ge $(( $1 * 10 )) ]; then
			rig_fail "QEMU still running $1 s after the guest" \
				 "reported its last result"
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
	wait "$VM_PID"
	rc=$?
	VM_PID=
	[ "$rc" -ne 124 ] ||
		rig_fail "QEMU killed after $VM_TIMEOUT s (timeout)" || return 1
	[ "$rc" -eq 0 ] ||
		rig_fail "QEMU exited with status $rc:" \
			 "$(tr '\n' ' ' <"$VM_ERR" | cut -c 1-300)" || return 1
	vm_line "VMTEST done" >/dev/null ||
		rig_fail "the guest's test did not finish" || return 1
	rig_log "guest ran $(rig_secs $(( $(rig_now_ms) - VM_START_MS ))) s" \
		"from QEMU start to power-off"
}
