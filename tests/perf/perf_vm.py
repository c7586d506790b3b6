# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/perf/perf_vm.py - passt relays serving QEMU guests, for --mode passt

Theory of operation: the guest is the one the VM tests boot: Debian's
cloud kernel and a busybox initramfs from tests/vm/mkimage, here with
iperf3, sockperf, socat and sha256sum copied from the host, running
tests/vm/guest_perf.sh; QEMU's command line comes from tests/vm/qemu_args.
image() builds it once per run. accel() probes KVM: a guest booted with
-accel kvm that prints no "VMTEST init" line within PROBE_SECS means KVM
can't run it here (on a host whose /dev/kvm emulates KVM in software, the
kernel decompresses for minutes), and the run uses TCG.

Guests.start() starts one peer (a passt binary) in the rig's host
namespace, listening on a UNIX socket, with -m MTU (the guest takes it by
DHCP) and the guest's iperf3, sockperf and transfer ports forwarded from
host ports of its own (-t HOST:GUEST: every relay lives in the same host
namespace), and the port that resets the guest's iperf3 server (an
earlier test that never ended for it leaves it answering "busy";
perf_vm_metrics.py resets it and measures again). Then QEMU boots the
guest on that socket, -netdev stream or vhost-user (guest memory shared
through a memfd, as upstream's vhost-user needs too), and Guests.start()
waits for the guest's "RESULT perf ok": DHCP done, servers listening.
Every client runs in the host namespace, against HOST_ADDR4 and those
ports, but the guest's half of the transfers, which connects through the
gateway address to a receiver on the host namespace's loopback. The
relay and QEMU are on the rig's cleanup stack.

The guest's console (QEMU's stdout and stderr) is a file; Guest.result()
waits for a "RESULT NAME ok|fail ..." line in it (tests/vm/guest_lib.sh).
"""

import os
import subprocess
import time

from perf_rig import HOST_ADDR4, RigError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VM_DIR = os.path.join(ROOT, "tests", "vm")

PEERS = ("passt", "passt-current", "passt-upstream")
ALIASES = {"ours": "passt", "current": "passt-current",
           "upstream": "passt-upstream"}
DEBIAN_PASST = "/usr/bin/passt"
BACKENDS = ("stream", "vhost-user")
# port of each guest server, forwarded from host port = base + index;
# "up" is the host's receiver, on its loopback: not forwarded
GUEST_PORTS = {"iperf": 5201, "sockperf": 11111, "down": 7001, "up": 7002,
               "stats": 7003, "reset": 7004}
FORWARDED = ("iperf", "sockperf", "down", "stats", "reset")
GUEST_MEM = "1G"
GUEST_TOOLS = ("iperf3", "sockperf", "socat", "sha256sum")
BOOT_SECS = 180         # QEMU start to "RESULT perf" (TCG, a busy host)
PROBE_SECS = 60         # a KVM guest silent this long: no KVM
SOCKET_SECS = 10        # relay start to its socket


def image(rig, cache):
    """Build the guest (tests/vm/mkimage) in the rig's output directory.

    Returns (image directory, mkimage's description of the kernel).
    """
    conf = os.path.join(rig.outdir, "vmtest.conf")
    with open(conf, "w", encoding="ascii") as f:
        f.write(f"VT_IPERF={GUEST_PORTS['iperf']}\n"
                f"VT_SOCKPERF={GUEST_PORTS['sockperf']}\n"
                f"VT_DOWN={GUEST_PORTS['down']}\n"
                f"VT_UP={GUEST_PORTS['up']}\n"
                f"VT_STATS={GUEST_PORTS['stats']}\n"
                f"VT_RESET={GUEST_PORTS['reset']}\n")
    img = os.path.join(rig.outdir, "vm")
    argv = [os.path.join(VM_DIR, "mkimage"), "-c", cache,
            "-f", f"{conf}:/etc/vmtest.conf"]
    for tool in GUEST_TOOLS:
        argv += ["-x", tool]
    argv += [img, os.path.join(VM_DIR, "guest_perf.sh")]
    log = os.path.join(rig.outdir, "mkimage.log")
    with open(log, "w", encoding="utf-8") as f:
        rc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT,
                            check=False).returncode
    with open(log, encoding="utf-8", errors="replace") as f:
        lines = f.read().strip().splitlines() or [""]
    if rc != 0:
        raise RigError(f"tests/vm/mkimage failed (status {rc}): "
                       f"{lines[-1]}, see {log}")
    return img, lines[-1]


def qemu_argv(img, accel, netdev, addr, vcpus=1):
    """QEMU's command line from tests/vm/qemu_args."""
    p = subprocess.run([os.path.join(VM_DIR, "qemu_args"), "-a", accel,
                        "-c", str(vcpus), "-m", GUEST_MEM, "-n", netdev,
                        img, addr],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise RigError(f"tests/vm/qemu_args: {p.stderr.strip()}")
    return ["qemu-system-x86_64"] + p.stdout.splitlines()


def accel(rig, img, want):
    """The accelerator to use: ("kvm" or "tcg", why, as text).

    want: "kvm", "tcg" or "auto" (probe KVM, see the top of the file).
    """
    if want != "auto":
        return want, f"--accel {want}"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg", "no usable /dev/kvm"
    console = os.path.join(rig.outdir, "kvm-probe.log")
    proc = rig.spawn(None, qemu_argv(img, "kvm", "none", "none"),
                     "kvm-probe.log")
    try:
        booted = rig.poll(PROBE_SECS, lambda: proc.poll() is None and
                          "VMTEST init" in _read(console), step=0.5)
    finally:
        rig.end(proc)
    if booted:
        return "kvm", "KVM probe: the guest booted"
    return "tcg", (f"KVM probe: no output from the guest within "
                   f"{PROBE_SECS} s")


def vhost_user_na(binary):
    """Why a passt binary can't do vhost-user, or None if it can."""
    p = subprocess.run([binary, "--help"], capture_output=True, text=True,
                       check=False)
    if "--vhost-user" in p.stdout + p.stderr:
        return None
    return f"{binary} has no --vhost-user"


def _read(path):
    """A file's text, line ends as they are ("\r\n" on the console), or
    "" if it can't be read."""
    try:
        with open(path, encoding="utf-8", errors="replace",
                  newline="") as f:
            return f.read()
    except OSError:
        return ""


class Guest:
    """One relay and the QEMU guest it serves.

    peer, backend, mtu: what this is; proc: the relay (Popen); qemu: QEMU
    (Popen); ports: {GUEST_PORTS name: host port}; fwd_addr: where host
    clients connect; sock: the relay's socket; transfers: transfer rounds
    done (tests/vm/guest_perf.sh numbers them).
    """

    def __init__(self, peer, backend, mtu):
        self.peer = peer
        self.backend = backend
        self.mtu = mtu
        self.proc = None
        self.qemu = None
        self.ports = {}
        self.fwd_addr = HOST_ADDR4
        self.sock = None
        self.transfers = 0

    @property
    def pid(self):
        """PID of the relay."""
        return self.proc.pid

    def dead(self):
        """Why the relay or QEMU stopped, or None if both run."""
        if self.proc.poll() is not None:
            return (f"{self.peer} exited (status {self.proc.returncode}), "
                    f"see {self.proc.log}")
        if self.qemu is not None and self.qemu.poll() is not None:
            return (f"QEMU exited (status {self.qemu.returncode}), see "
                    f"{self.qemu.log}")
        return None

    def _line(self, prefix):
        """The console's first complete line with prefix, from it on."""
        for ln in _read(self.qemu.log).split("\n"):
            i = ln.find(prefix)
            if i >= 0 and ln.endswith("\r"):
                return ln[i:].rstrip("\r")
        return None

    def result(self, name, secs):
        """Wait for "RESULT name ok ..."; returns the details after ok.

        Raises RigError on a "fail" result, if QEMU or the relay stops,
        or after secs.
        """
        prefix = f"RESULT {name} "
        end = time.monotonic() + secs
        while True:
            ln = self._line(prefix)
            if ln is not None:
                rest = ln[len(prefix):]
                if rest == "ok" or rest.startswith("ok "):
                    return rest[3:]
                raise RigError(f"guest: {name}: {rest}")
            why = self.dead()
            if why or time.monotonic() > end:
                raise RigError(f"no {name} from the guest: "
                               f"{why or f'not within {secs} s'}")
            time.sleep(0.1)


class Guests:
    """Starts relays and their guests in a rig."""

    def __init__(self, rig, binaries, img, accel_name, vcpus=1):
        self.rig = rig
        self.binaries = binaries        # {peer: passt binary}
        self.img = img
        self.accel = accel_name
        self.vcpus = vcpus

    def start(self, peer, backend, mtu, port_base):
        """Start a relay and boot a guest on it; returns the Guest.

        port_base: first host port of this guest's forwarded ports.
        Raises RigError if either doesn't come up.
        """
        g = Guest(peer, backend, mtu)
        tag = f"{peer}-{backend}-{mtu}"
        sock = os.path.join(self.rig.outdir, f"{tag}.sock")
        g.sock = sock
        fwd = []
        for k, name in enumerate(FORWARDED):
            g.ports[name] = port_base + k
            fwd.append(f"{port_base + k}:{GUEST_PORTS[name]}")
        argv = [self.binaries[peer], "-f", "--runas", "0", "-s", sock,
                "-m", str(mtu), "-u", "none", "-t", ",".join(fwd)]
        if backend == "vhost-user":
            argv.append("--vhost-user")
        g.proc = self.rig.spawn(self.rig.host_ns, argv, f"relay-{tag}.log")
        try:
            self._boot(g, backend)
        except RigError:
            self.stop(g)        # not left running through the others
            raise
        return g

    def _boot(self, g, backend):
        """Wait for the relay's socket, boot QEMU on it, wait for the
        guest's "RESULT perf"."""
        if not self.rig.poll(SOCKET_SECS, lambda: os.path.exists(g.sock) or
                             g.dead()):
            raise RigError(f"{g.peer}: no socket {g.sock} after "
                           f"{SOCKET_SECS} s, see {g.proc.log}")
        if g.dead():
            raise RigError(g.dead())
        tag = f"{g.peer}-{backend}-{g.mtu}"
        g.qemu = self.rig.spawn(self.rig.host_ns,
                                qemu_argv(self.img, self.accel, backend,
                                          g.sock, self.vcpus),
                                f"console-{tag}.log")
        g.result("perf", BOOT_SECS)

    def stop(self, g):
        """Stop a guest's QEMU and its relay."""
        if g.qemu is not None:
            self.rig.end(g.qemu)
        self.rig.end(g.proc)
        for path in (g.sock, g.sock + ".repair"):   # upstream: both
            if os.path.exists(path):
                os.unlink(path)
