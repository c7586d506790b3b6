#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/interop/libvirt.sh - libvirt 11 (Debian 13) running this passt
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh, tests/vm/host.sh and
# checks.sh, tests/interop/lib/trixie.sh): the rig's host namespace, and
# in it a session in the Debian 13 root where libvirtd runs, started by
# hand (no systemd there) and killed with the session. This build's passt
# is bound over the root's /usr/bin/passt, which libvirt starts for a
# domain's passt backend; libvirt's own files (/var/lib, /var/log,
# /var/cache/libvirt) are tmpfs mounts of the session, /sys/fs/cgroup an
# empty one (libvirt makes no cgroup), and qemu.conf is the test's (no
# security driver, no mount namespace, serial console to a file). The
# domains boot the test guest (tests/vm/guest_passt.sh) under TCG with
# QEMU 10, kernel and initramfs given to libvirt directly. Two domains:
#   1. <interface type='user'><backend type='passt'/> with a
#      <portForward>: passt on a stream socket;
#   2. <interface type='vhostuser'><backend type='passt'/>, the same
#      forward, guest memory shared through a memfd.
# Checked for each:
#   - virsh create starts the domain; the passt libvirt started is this
#     build (the inode behind /proc/PID/exe), runs as libvirt's QEMU user
#     and was given the forwarded port;
#   - the guest boots, DHCP gives it the host's address, prefix length,
#     gateway and MTU 65520; ping, SLAAC;
#   - TCP, IPv4 and IPv6: a file each way between the guest and servers on
#     the host namespace's loopback, sha256 compared on the host side and
#     the guest's;
#   - the <portForward> port: a server in the guest reached from the
#     host's loopback, sha256;
#   - the guest powers off, the domain shuts off, and passt exits (libvirt
#     starts it with --one-off).
#
# Environment: INTEROP_ROOT (tests/interop/lib/trixie.sh), VM_TIMEOUT;
# PASST, passt binary (default: next to RELAY).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/interop/lib/vm.sh
. "$(dirname "$0")/lib/vm.sh"

LV_DIR=/srv/interop	# the rig's files for libvirt, inside the root
LV_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LV_DOM=
LV_PASST_PID=
LIBVIRTD_JOB=

ivm_init
LV_HOST=$RIG_TMP/lv		# LV_DIR, as seen from here
mkdir -p "$LV_HOST" && chmod 755 "$LV_HOST" || exit 1

# lv() - run a command in the session, as root there
lv() {
	trixie_session env -i PATH="$LV_PATH" HOME=/root "$@"
}

# virsh_() - virsh on libvirtd's system connection, bounded
virsh_() {
	lv timeout 60 virsh -c qemu:///system "$@"
}

# libvirtd_up() - test: a session with libvirtd, which answers virsh
libvirtd_up() {
	# shellcheck disable=SC2034 # read by trixie_exec
	local TRIXIE_NETNS=$RIG_HOSTNS v
	# shellcheck disable=SC2034 # read by trixie_exec
	local TRIXIE_BINDS=("$PASST:/usr/bin/passt" "$LV_HOST:$LV_DIR:rw"
			    "$RIG_TMP/qemu.conf:/etc/libvirt/qemu.conf")

	rig_persist
	cat >"$RIG_TMP/qemu.conf" <<EOF
# tests/interop/libvirt.sh: no systemd, no security module, no cgroups
security_driver = "none"
namespaces = [ ]
cgroup_controllers = [ ]
stdio_handler = "file"
remember_owner = 0
EOF
	trixie_session_start "$RIG_TMP/session.pid" \
		2>>"$RIG_TMP/session.log" ||
		rig_fail "can't start a session in the root" || return 1
	rig_defer trixie_session_stop
	# shellcheck disable=SC2016 # expanded in the session
	lv sh -c 'for d in /var/lib/libvirt /var/log/libvirt \
			   /var/cache/libvirt /sys/fs/cgroup; do
			mount -t tmpfs -o mode=755 libvirt "$d" || exit 1
		  done
		  mkdir -p /var/lib/libvirt/qemu /var/log/libvirt/qemu
		  chown libvirt-qemu: /var/lib/libvirt/qemu' ||
		rig_fail "can't prepare libvirt's directories" || return 1
	lv libvirtd --pid-file /run/libvirtd.pid \
		>"$RIG_TMP/libvirtd.log" 2>&1 &
	LIBVIRTD_JOB=$!
	rig_defer "rig_kill $LIBVIRTD_JOB"
	rig_poll 20 virsh_ version >/dev/null 2>&1 ||
		rig_fail "libvirtd does not answer after 20 s:" \
			 "$(tail -n 3 "$RIG_TMP/libvirtd.log" | tr '\n' ' ')" ||
		return 1
	v=$(virsh_ version 2>&1 | grep -i 'running hypervisor\|library')
	rig_log "$(tr '\n' ' ' <<<"$v")"
	if [[ ! $v =~ libvirt\ ([0-9]+)\. ]] || [ "${BASH_REMATCH[1]}" -lt 11 ]
	then
		rig_fail "not libvirt 11 or later: $v"
	fi
}

# lv_image() - test: the guest image, where libvirt can read it
lv_image() {
	image || return 1
	cp "$VM_IMG/vmlinuz" "$VM_IMG/initramfs.gz" "$LV_HOST/" &&
		chmod 644 "$LV_HOST/vmlinuz" "$LV_HOST/initramfs.gz"
}

# domain_xml() - print a domain's XML
# $1: name
# $2: user or vhostuser
domain_xml() {
	local mem=''

	[ "$2" = vhostuser ] &&
		mem="<memoryBacking><source type='memfd'/>
		     <access mode='shared'/></memoryBacking>"
	cat <<EOF
<domain type='qemu'>
  <name>$1</name>
  <memory unit='MiB'>512</memory>
  <vcpu>1</vcpu>
  $mem
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$LV_DIR/vmlinuz</kernel>
    <initrd>$LV_DIR/initramfs.gz</initrd>
    <cmdline>console=ttyS0 quiet panic=-1</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <interface type='$2'>
      <backend type='passt'/>
      <mac address='$VM_MAC'/>
      <model type='virtio'/>
      <rom enabled='no'/>
      <portForward proto='tcp'>
        <range start='$FWD'/>
      </portForward>
    </interface>
    <serial type='file'>
      <source path='$LV_DIR/$1.console'/>
      <target port='0'/>
    </serial>
    <memballoon model='none'/>
  </devices>
</domain>
EOF
}

# find_pid() - the PID (as seen from here) of a process with a word in its
# command line and a given binary
# $1: word (an argument, exactly)
# $2: binary (compared by inode)
find_pid() {
	local p want

	want=$(stat -L -c %d:%i "$2") || return 1
	for p in /proc/[0-9]*; do
		[ "$(stat -L -c %d:%i "$p/exe" 2>/dev/null)" = "$want" ] ||
			continue
		tr '\0' '\n' 2>/dev/null <"$p/cmdline" | grep -qF -- "$1" ||
			continue
		echo "${p#/proc/}"
		return 0
	done
	return 1
}

# dom_start() - test: virsh create starts the domain, with our passt
# $1: domain name
# $2: user or vhostuser
dom_start() {
	local dom=$1 out args qemu

	rig_persist
	LV_DOM=$dom
	: >"$LV_HOST/$dom.console"
	domain_xml "$dom" "$2" >"$LV_HOST/$dom.xml"
	VM_START_MS=$(rig_now_ms)
	out=$(virsh_ create "$LV_DIR/$dom.xml" 2>&1) ||
		rig_fail "virsh create: $(tr '\n' ' ' <<<"$out")" || return 1
	rig_defer "virsh_ destroy '$dom' >/dev/null 2>&1"
	VM_CONSOLE=$LV_HOST/$dom.console
	VM_ERR=/proc/$TRIXIE_SESSION/root/var/log/libvirt/qemu/$dom.log
	qemu=$TRIXIE_ROOT/usr/bin/qemu-system-x86_64
	VM_PID=$(find_pid "guest=$dom" "$qemu") ||
		rig_fail "no QEMU process for $dom" || return 1
	LV_PASST_PID=$(find_pid "$dom" "$PASST") ||
		rig_fail "libvirt started no passt of this build for $dom:" \
			 "$(grep -i passt "$VM_ERR" 2>/dev/null | tail -n 2)" ||
		return 1
	args=$(tr '\0' ' ' <"/proc/$LV_PASST_PID/cmdline")
	rig_log "passt pid $LV_PASST_PID (uid" \
		"$(awk '/^Uid:/ { print $2 }' "/proc/$LV_PASST_PID/status")):" \
		"$args"
	[ "$(awk '/^Uid:/ { print $2 }' "/proc/$LV_PASST_PID/status")" = \
	  "$(awk -F: '$1 == "libvirt-qemu" { print $3 }' \
	     "$TRIXIE_ROOT/etc/passwd")" ] ||
		rig_fail "passt does not run as libvirt-qemu" || return 1
	[[ " $args " == *" --tcp-ports $FWD "* ]] ||
		[[ " $args " == *" -t $FWD "* ]] ||
		rig_fail "passt was not given the forwarded port $FWD" ||
		return 1
	guest_up
}

# dom_stopped() - is the domain no longer running?
dom_stopped() {
	[ "$(virsh_ domstate "$LV_DOM" 2>&1 | head -n 1)" != running ]
}

# dom_finish() - test: the guest powers off, the domain shuts off, passt
# exits by itself
dom_finish() {
	local state

	if ! rig_poll 30 vm_exited; then
		cp "$VM_ERR" "$RIG_TMP/$LV_DOM.qemu.log" 2>/dev/null
		rig_fail "QEMU still runs 30 s after the guest's last result:" \
			 "$(tail -n 3 "$VM_ERR" 2>/dev/null | tr '\n' ' ')"
		return 1
	fi
	VM_PID=
	vm_line "VMTEST done" >/dev/null ||
		rig_fail "the guest's test did not finish" || return 1
	rig_poll 10 dom_stopped
	state=$(virsh_ domstate "$LV_DOM" 2>&1 | head -n 1)
	[[ $state == "shut off" || $state == *"failed to get domain"* ]] ||
		rig_fail "domain state after power-off: $state" || return 1
	rig_poll 10 rig_exited "$LV_PASST_PID" ||
		rig_fail "passt (pid $LV_PASST_PID) still runs 10 s after" \
			 "QEMU exited"
}

# domain() - one domain, its checks
# $1: name of the round
# $2: user or vhostuser
domain() {
	local name=$1

	rig_run "$name: host servers listen" servers
	rig_run "$name: virsh create starts it with this passt" \
		dom_start "interop-$2" "$2"
	if [ -n "$VM_PID" ]; then
		vmc_checks "$name" forwarded
		rig_run "$name: guest powers off, domain and passt end" \
			dom_finish
	fi
	[ "$RIG_FAILED" -eq 0 ] || vm_console_tail 30
	VM_PID=
}

rig_run "libvirtd 11 runs in the Debian 13 root" libvirtd_up
[ -n "$TRIXIE_SESSION" ] || rig_summary
rig_run "guest image (Debian kernel, busybox initramfs)" lv_image
[ -n "$VM_KERNEL" ] || rig_summary
ping_sockets || rig_summary
domain "libvirt 11 passt backend, user" user
domain "libvirt 11 passt backend, vhost-user" vhostuser
rig_summary
