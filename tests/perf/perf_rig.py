# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/perf/perf_rig.py - namespaces, processes and cleanup for the benchmark

Theory of operation: a Rig owns everything the benchmark creates. Every
namespace and every process is registered on a cleanup stack as it is
made; Rig.cleanup() unwinds it (processes by PID: SIGTERM, then SIGKILL;
namespaces: kill what is left inside by PID, then delete). tests/perf/run
calls it from a finally block and turns SIGINT/SIGTERM/SIGHUP into
exceptions, so cleanup runs on success, failure and Ctrl-C alike.

The "host" namespace (Rig.host_ns) is the stand-in for the host: a veth
pair with both ends inside it, 192.0.2.2/24 and 2001:db8::2/64 on one end,
default routes via 192.0.2.1 and 2001:db8::1 (unused addresses), lo up.
Relays run inside it; servers listen on its loopback. With Rig.congestion
set, its TCP sockets use that congestion control (a namespace's own
sysctl; a new namespace otherwise inherits the machine's default); if
the machine doesn't allow namespaces that one, it is added to the
allowed list until cleanup, which restores the list.

Processes run in a namespace through "ip netns exec NS CMD", which execs
CMD in place: the PID we get is the command's own.
"""

import os
import re
import resource
import signal
import subprocess
import time

# Congestion controls a namespace may choose (the init namespace's list)
ALLOWED_CC = "/proc/sys/net/ipv4/tcp_allowed_congestion_control"
HOST_ADDR4 = "192.0.2.2"
HOST_GW4 = "192.0.2.1"
HOST_ADDR6 = "2001:db8::2"
HOST_GW6 = "2001:db8::1"
HOST_GW_MAC = "02:00:00:00:00:01"

CLK_TCK = os.sysconf("SC_CLK_TCK")


def _on_signal(signum, _frame):
    """SIGTERM/SIGHUP: leave through the caller's cleanup (finally)."""
    print(f"\n# signal {signum}: cleaning up", flush=True)
    raise SystemExit(128 + signum)


def catch_signals():
    """SIGINT, SIGTERM and SIGHUP raise, so that Rig.cleanup() runs.

    SIGINT too when the benchmark was started with it ignored (a
    background job).
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)


def loadavg():
    """The 1, 5 and 15 minute load averages, as text."""
    with open("/proc/loadavg", encoding="ascii") as f:
        return " ".join(f.read().split()[:3])


class RigError(Exception):
    """A step of the set-up failed: the message says which and why."""


def _raise_nofile():
    """preexec_fn: raise the soft descriptor limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Rig:
    """Namespaces and processes of one benchmark run, and their cleanup."""

    def __init__(self, prefix, outdir):
        self.prefix = prefix
        self.outdir = outdir
        self.host_ns = None
        self.congestion = None  # host namespace's TCP congestion control
        self._stack = []        # (kind, what), unwound last in first out
        self._seq = 0

    # -- commands ---------------------------------------------------------

    @staticmethod
    def sh(argv, timeout=30, check=True):
        """Run a command in the current namespace, return its stdout.

        Raises RigError with the command's stderr if it fails and check
        is set.
        """
        try:
            p = subprocess.run(argv, capture_output=True, text=True,
                               timeout=timeout, check=False)
        except subprocess.TimeoutExpired as e:
            raise RigError(f"{' '.join(argv)}: no result in {timeout} s") \
                from e
        if check and p.returncode != 0:
            raise RigError(f"{' '.join(argv)}: exit status {p.returncode}: "
                           f"{p.stderr.strip()}")
        return p.stdout

    def ns_sh(self, ns, argv, timeout=30, check=True):
        """Run a command in namespace ns, return its stdout."""
        return self.sh(["ip", "netns", "exec", ns] + argv, timeout, check)

    def run(self, ns, argv, log, timeout):
        """Run a command in a namespace to completion, output into a file.

        Returns (exit status or None on timeout, output text). The output
        file (stdout and stderr) is kept in the raw output directory.
        """
        path = os.path.join(self.outdir, log)
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"# ns {ns}: {' '.join(argv)}\n")
            f.flush()
            p = subprocess.Popen(self._in_ns(ns, argv), stdout=f,
                                 stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL,
                                 preexec_fn=_raise_nofile)
            self._stack.append(("proc", p))
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                rc = None
            self.end(p)
        with open(path, encoding="utf-8", errors="replace") as f:
            f.readline()
            return rc, f.read()

    def spawn(self, ns, argv, log):
        """Start a command in a namespace in the background.

        Its output (stdout and stderr) goes to the file log in the raw
        output directory; p.log is its path. The process is stopped with
        end(), or at cleanup at the latest.
        """
        path = os.path.join(self.outdir, log)
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"# ns {ns}: {' '.join(argv)}\n")
            f.flush()
            p = subprocess.Popen(self._in_ns(ns, argv), stdout=f,
                                 stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL,
                                 preexec_fn=_raise_nofile)
        p.log = path
        self._stack.append(("proc", p))
        return p

    def end(self, p):
        """Stop a process started by spawn() or run() and forget it."""
        rc = self.stop(p)
        if ("proc", p) in self._stack:
            self._stack.remove(("proc", p))
        return rc

    @staticmethod
    def _in_ns(ns, argv):
        return argv if ns is None else ["ip", "netns", "exec", ns] + argv

    @staticmethod
    def stop(p, grace=3.0):
        """Stop a process we started, by its PID: SIGTERM, then SIGKILL."""
        if p.poll() is not None:
            return p.returncode
        try:
            p.send_signal(signal.SIGTERM)
            return p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            p.kill()
            return p.wait()
        except ProcessLookupError:
            return p.poll()

    # -- namespaces -------------------------------------------------------

    def new_ns(self, tag):
        """Create an empty namespace named PREFIX-tagN with lo up."""
        self._seq += 1
        name = f"{self.prefix}{tag}{self._seq}"
        self.sh(["ip", "netns", "add", name])
        self._stack.append(("ns", name))
        self.sh(["ip", "-n", name, "link", "set", "lo", "up"])
        return name

    def make_host_ns(self):
        """Create the stand-in host namespace (see the top of the file)."""
        h = self.new_ns("h")
        self.host_ns = h
        self.ns_sh(h, ["sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0",
                       "net.ipv6.conf.default.accept_dad=0"])
        if self.congestion:
            self._allow_congestion(self.congestion)
            self.ns_sh(h, ["sysctl", "-qw",
                           "net.ipv4.tcp_congestion_control="
                           f"{self.congestion}"])
        for cmd in (["link", "add", "veth0", "type", "veth",
                     "peer", "name", "veth1"],
                    ["link", "set", "veth0", "up"],
                    ["link", "set", "veth1", "up"],
                    ["addr", "add", f"{HOST_ADDR4}/24", "dev", "veth0"],
                    ["addr", "add", f"{HOST_ADDR6}/64", "dev", "veth0",
                     "nodad"],
                    ["route", "add", "default", "via", HOST_GW4],
                    ["-6", "route", "add", "default", "via", HOST_GW6],
                    ["neigh", "add", HOST_GW4, "lladdr", HOST_GW_MAC,
                     "dev", "veth0", "nud", "permanent"],
                    ["neigh", "add", HOST_GW6, "lladdr", HOST_GW_MAC,
                     "dev", "veth0", "nud", "permanent"]):
            self.sh(["ip", "-n", h] + cmd)
        return h

    def _allow_congestion(self, name):
        """Let namespaces choose a congestion control: the machine's list
        of allowed ones (init namespace) gets it until cleanup, if needed.
        Only the default and reno are allowed after boot, and a namespace
        may only choose an allowed one (EPERM otherwise)."""
        with open(ALLOWED_CC, encoding="ascii") as f:
            old = f.read().strip()
        if name in old.split():
            return
        with open(ALLOWED_CC, "w", encoding="ascii") as f:
            f.write(f"{old} {name}")
        self._stack.append(("sysctl", (ALLOWED_CC, old)))

    def del_ns(self, name):
        """Kill what runs in a namespace we made (by PID), delete it."""
        out = self.sh(["ip", "netns", "pids", name], check=False)
        for pid in out.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        self.sh(["ip", "netns", "del", name], check=False)

    def forget_ns(self, name):
        """Delete a namespace now instead of at cleanup."""
        self.del_ns(name)
        self._stack = [e for e in self._stack if e != ("ns", name)]

    def cleanup(self):
        """Unwind everything: processes first, then namespaces."""
        while self._stack:
            kind, what = self._stack.pop()
            try:
                if kind == "proc":
                    self.stop(what, grace=2.0)
                elif kind == "sysctl":
                    with open(what[0], "w", encoding="ascii") as f:
                        f.write(what[1])
                else:
                    self.del_ns(what)
            except Exception as e:      # pylint: disable=broad-except
                print(f"# cleanup of {kind} {what}: {e}")

    # -- polling and /proc ------------------------------------------------

    @staticmethod
    def poll(secs, cond, step=0.05):
        """Call cond() until it is true or secs pass; return its value."""
        end = time.monotonic() + secs
        while True:
            v = cond()
            if v or time.monotonic() >= end:
                return v
            time.sleep(step)

    def listening(self, ns, port, proto="t"):
        """True if something listens on TCP (t) or UDP (u) port in ns."""
        out = self.ns_sh(ns, ["ss", f"-Hln{proto}", f"sport = :{port}"],
                         check=False)
        return bool(out.strip())

    def wait_listen(self, ns, port, secs=5):
        """Wait until a TCP port listens in ns, or raise RigError."""
        if not self.poll(secs, lambda: self.listening(ns, port)):
            raise RigError(f"nothing listens on TCP port {port} in {ns} "
                           f"after {secs} s")

    def has_addr(self, ns, addr):
        """True if namespace ns has address addr on some interface."""
        out = self.sh(["ip", "-n", ns, "-o", "addr", "show"], check=False)
        return f" {addr}/" in out

    @staticmethod
    def cpu_seconds(pid):
        """CPU time of a process so far, user and system, in seconds.

        The scheduler's count in nanoseconds (/proc/PID/task/*/schedstat,
        summed over threads): clock ticks (/proc/PID/stat) are 10 ms, 2 %
        of a relay's CPU time in a 5-second run at 1 Gbit/s. Ticks only
        where the kernel has no schedstat.
        """
        total = 0
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/schedstat",
                          encoding="ascii") as f:
                    total += int(f.read().split()[0])
            return total / 1e9
        except (FileNotFoundError, IndexError, ValueError):
            pass
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # fields[0] is field 3 (state): utime, stime are fields 14, 15
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    @staticmethod
    def rss_kib(pid):
        """Resident memory (VmRSS) of a process in KiB."""
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            m = re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M)
        if not m:
            raise RigError(f"no VmRSS for pid {pid}")
        return int(m.group(1))
