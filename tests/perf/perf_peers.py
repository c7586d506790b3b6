# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/perf/perf_peers.py - the four things the benchmark compares

Theory of operation: each peer knows how to give a fresh target namespace
a path to the rig's "host" namespace (perf_rig.Rig.host_ns) and back:

  pasta           this project's ./pasta, run in the host namespace with
                  --netns TARGET; 192.0.2.1 in the target reaches the host
                  namespace's loopback; -t PORT forwards host->namespace.
  pasta-busy      the same with --busy-poll USEC (tests/perf/run
                  --busy-poll USEC; without it, not a peer).
  pasta-upstream  Debian's passt package (/usr/bin/pasta), same options
                  (--runas 0, as we are root).
  pasta-current   upstream pasta built from its current sources, given by
                  path (tests/perf/run --upstream PATH), same options.
  slirp4netns     Debian's slirp4netns, --netns-type=path; 10.0.2.2
                  reaches the host namespace's loopback (host loopback
                  access is left enabled); host->namespace through its API
                  socket (add_hostfwd).
  veth            no relay: a veth pair between the host namespace and the
                  target, the kernel-to-kernel limit. Servers in the host
                  namespace listen on the host end's address instead of
                  loopback (loopback isn't reachable over a link).

start() returns an Instance: everything a measurement needs to know (where
clients connect, where servers bind, the relay's PID).
"""

import json
import os
import socket
import time

from perf_rig import HOST_ADDR4, RigError

PEERS = ("pasta", "pasta-busy", "pasta-current", "pasta-upstream",
         "slirp4netns", "veth")
ALIASES = {"ours": "pasta", "upstream": "pasta-upstream",
           "current": "pasta-current", "slirp": "slirp4netns",
           "busy": "pasta-busy"}

UPSTREAM_PASTA = "/usr/bin/pasta"
SLIRP_GUEST4 = "10.0.2.100"
SLIRP_HOST4 = "10.0.2.2"
READY_SECS = 10


class Instance:
    """One running peer serving one target namespace.

    peer:      peer name (PEERS)
    mtu:       MTU of the target namespace's interface
    ns:        target namespace
    proc:      relay process (Popen) or None (veth)
    gw4:       address a client in ns connects to, to reach host servers
    srv_bind:  address host-namespace servers bind to
    fwd_port:  host->namespace port (same number on both sides) or None
    fwd_addr:  address a host-namespace client connects to for fwd_port
    fwd_na:    why there is no host->namespace path, if there is none
    rss_idle_kib: the relay's VmRSS after start-up (set by the caller)
    """

    def __init__(self, peer, mtu, ns):
        self.peer = peer
        self.mtu = mtu
        self.ns = ns
        self.proc = None
        self.gw4 = None
        self.srv_bind = "127.0.0.1"
        self.fwd_port = None
        self.fwd_addr = HOST_ADDR4
        self.fwd_na = None
        self.rss_idle_kib = None

    @property
    def pid(self):
        """PID of the relay, None for veth."""
        return self.proc.pid if self.proc else None

    def alive(self):
        """True if the relay still runs (always true for veth)."""
        return self.proc is None or self.proc.poll() is None


class Peers:
    """Starts instances of the peers in a rig."""

    def __init__(self, rig, ours, current=None, busy_poll=None):
        self.rig = rig
        self.ours = ours                # path of this project's pasta
        self.current = current          # upstream built from source
        self.busy_poll = busy_poll      # --busy-poll of pasta-busy
        self._veth_seq = 0

    def start(self, peer, mtu, fwd_port=None, max_flows=None, extra=None):
        """Start peer for a new target namespace; return its Instance.

        fwd_port: port to forward host->namespace, or None.
        max_flows: --max-flows for this project's pasta (None: default).
        extra: more options for this project's pasta (list), or None.
        Raises RigError if the peer doesn't come up.
        """
        tag = {"pasta": "p", "pasta-busy": "b", "pasta-current": "c",
               "pasta-upstream": "u", "slirp4netns": "s", "veth": "v"}[peer]
        ns = self.rig.new_ns(tag)
        inst = Instance(peer, mtu, ns)
        if peer == "veth":
            self._veth(inst, fwd_port)
        elif peer == "slirp4netns":
            self._slirp(inst, fwd_port)
        else:
            self._pasta(inst, fwd_port, max_flows, extra)
        with open(os.path.join(self.rig.outdir, f"ns-{ns}.txt"), "w",
                  encoding="utf-8") as f:
            f.write(f"# {peer}, MTU {mtu}\n")
            f.write(self.rig.sh(["ip", "-n", ns, "-d", "addr"]))
            f.write(self.rig.sh(["ip", "-n", ns, "route"]))
        return inst

    def stop(self, inst):
        """Stop an instance's relay and delete its namespace."""
        if inst.proc:
            self.rig.end(inst.proc)
        self.rig.forget_ns(inst.ns)

    def _wait_ready(self, inst, addr, what):
        """Wait for addr in the target namespace and the forwarded port."""
        h = self.rig.host_ns

        def ready():
            if not inst.alive():
                raise RigError(f"{what} exited during start-up "
                               f"(status {inst.proc.returncode}), see "
                               f"{inst.proc.log}")
            return self.rig.has_addr(inst.ns, addr)

        if not self.rig.poll(READY_SECS, ready):
            raise RigError(f"{what}: {addr} not configured in {inst.ns} "
                           f"after {READY_SECS} s, see {inst.proc.log}")
        if inst.fwd_port and not self.rig.poll(
                READY_SECS, lambda: self.rig.listening(h, inst.fwd_port)):
            raise RigError(f"{what}: port {inst.fwd_port} not forwarded "
                           f"after {READY_SECS} s, see {inst.proc.log}")

    def _pasta(self, inst, fwd_port, max_flows, extra=None):
        """This project's pasta or an upstream pasta, in the foreground."""
        binary = {"pasta": self.ours, "pasta-busy": self.ours,
                  "pasta-current": self.current,
                  "pasta-upstream": UPSTREAM_PASTA}[inst.peer]
        argv = [binary, "-f", "--runas", "0", "--config-net",
                "-m", str(inst.mtu), "-u", "none", "-T", "none",
                "-U", "none", "-t", str(fwd_port) if fwd_port else "none"]
        if max_flows:
            argv += ["--max-flows", str(max_flows)]
        if extra and inst.peer == "pasta":
            argv += extra
        if inst.peer == "pasta-busy":
            argv += ["--busy-poll", str(self.busy_poll)]
        argv += ["--netns", inst.ns]
        inst.proc = self.rig.spawn(self.rig.host_ns, argv,
                                   f"relay-{inst.ns}.log")
        inst.gw4 = "192.0.2.1"
        inst.fwd_port = fwd_port
        self._wait_ready(inst, HOST_ADDR4, inst.peer)

    def _slirp(self, inst, fwd_port):
        """slirp4netns with its API socket for the forwarded port."""
        sock = os.path.join(self.rig.outdir, f"slirp-{inst.ns}.sock")
        argv = ["slirp4netns", "--configure", f"--mtu={inst.mtu}",
                "--netns-type=path", f"--api-socket={sock}",
                f"/run/netns/{inst.ns}", "tap0"]
        inst.proc = self.rig.spawn(self.rig.host_ns, argv,
                                   f"relay-{inst.ns}.log")
        inst.gw4 = SLIRP_HOST4
        self._wait_ready(inst, SLIRP_GUEST4, "slirp4netns")
        if not fwd_port:
            return
        if not self.rig.poll(READY_SECS, lambda: os.path.exists(sock)):
            raise RigError(f"slirp4netns: no API socket {sock}")
        reply = self._slirp_api(sock, {
            "execute": "add_hostfwd",
            "arguments": {"proto": "tcp", "host_addr": "0.0.0.0",
                          "host_port": fwd_port,
                          "guest_addr": SLIRP_GUEST4,
                          "guest_port": fwd_port}})
        if "return" not in reply:
            inst.fwd_na = f"add_hostfwd failed: {reply}"
            return
        inst.fwd_port = fwd_port
        self._wait_ready(inst, SLIRP_GUEST4, "slirp4netns")

    @staticmethod
    def _slirp_api(path, request):
        """One request on slirp4netns' API socket; returns the reply."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(path)
            s.sendall(json.dumps(request).encode())
            s.shutdown(socket.SHUT_WR)
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        try:
            return json.loads(data.decode() or "{}")
        except ValueError:
            return {"error": data.decode(errors="replace")}

    def _veth(self, inst, fwd_port):
        """A veth pair, 198.51.100.(4k+1)/30 host side, (4k+2) target."""
        k = self._veth_seq
        self._veth_seq += 1
        h = self.rig.host_ns
        here, there = f"198.51.100.{4 * k + 1}", f"198.51.100.{4 * k + 2}"
        hv, nv = f"pv{k}h", f"pv{k}n"
        for argv in (
                ["ip", "-n", h, "link", "add", hv, "mtu", str(inst.mtu),
                 "type", "veth", "peer", "name", nv, "netns", inst.ns,
                 "mtu", str(inst.mtu)],
                ["ip", "-n", h, "addr", "add", f"{here}/30", "dev", hv],
                ["ip", "-n", inst.ns, "addr", "add", f"{there}/30",
                 "dev", nv],
                ["ip", "-n", h, "link", "set", hv, "up"],
                ["ip", "-n", inst.ns, "link", "set", nv, "up"],
                ["ip", "-n", inst.ns, "route", "add", "default", "via",
                 here]):
            self.rig.sh(argv)
        inst.gw4 = here
        inst.srv_bind = here
        inst.fwd_addr = there
        inst.fwd_port = fwd_port
        # Let both ends come up (carrier) before the first measurement
        time.sleep(0.2)
