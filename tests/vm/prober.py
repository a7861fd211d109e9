# SPDX-License-Identifier: GPL-2.0-or-later
"""Continuous ICMP echo from a few source namespaces to every live node
of a rack: one echo per pair every `interval` seconds, each send and
each answer timestamped, so that a fault's cost is known pair by pair
(when the last pair got through again, how many echoes were lost)
rather than bounded by the length of a polling round.

    p = Prober(srcs, targets, ns_of, addr_of, interval=0.1)
    p.start()
    ...fault at t0...
    fig = p.settled(t0)       # None until every pair answers again
    p.stop()
"""

import bisect
import contextlib
import random
import select
import socket
import struct
import threading
import time

import torus_lab as tl

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)


def _echo(ident, seq):
    payload = b"torus-probe" + bytes(21)
    hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
    hdr = struct.pack("!BBHHH", 8, 0, tl._icmp_sum(hdr + payload), ident,
                      seq)
    return hdr + payload


class Prober:
    """srcs: source nodes; targets(): the nodes alive now (read every
    round, so a killed node stops being probed at once); ns_of(node),
    addr_of(node): its namespace and IPv4 address."""

    def __init__(self, srcs, targets, ns_of, addr_of, interval=0.1,
                 answer_wait=2.0):
        self.srcs = list(srcs)
        self.targets = targets
        self.ns_of = ns_of
        self.addr_of = addr_of
        self.interval = interval
        self.answer_wait = answer_wait
        self.lock = threading.Lock()
        self.sent = {}          # (src, dst) -> ([send time], [seq])
        self.answered = {}      # (src, dst, seq) -> answer time
        self.halt = threading.Event()
        self.resumed = threading.Event()
        self.resumed.set()
        self.threads = []
        self.errors = []
        self.rounds = 0         # rounds of echoes sent
        self.drained_at = 0.0   # every answer before this was read

    def start(self):
        self.socks = {}
        for s in self.srcs:
            with tl.netns(self.ns_of(s)):
                sock = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                     socket.IPPROTO_ICMP)
            # a starved prober must not lose answers to a full queue,
            # and an answer's time is the kernel's, not when we woke
            sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 1 << 22)
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            self.socks[sock] = (s, random.getrandbits(16), {})
        t = threading.Thread(target=self._run, daemon=True)
        self.threads.append(t)
        t.start()

    def stop(self):
        self.halt.set()
        for t in self.threads:
            t.join(10)
        for sock in self.socks:
            sock.close()

    @contextlib.contextmanager
    def paused(self):
        """No echo is sent inside (answers are still read): for work
        that measures something else and must not share the guest's CPUs
        with a few thousand echoes a second."""
        self.resumed.clear()
        try:
            yield
        finally:
            self.resumed.set()

    def _send_round(self, seq):
        for sock, (src, ident, by_addr) in self.socks.items():
            pkt = _echo(ident, seq)
            for d in self.targets():
                if d == src:
                    continue
                a = self.addr_of(d)
                by_addr[a] = d
                t = time.time()
                try:
                    sock.sendto(pkt, (a, 0))
                except OSError:
                    pass        # no route: counts as lost
                with self.lock:
                    times, seqs = self.sent.setdefault((src, d), ([], []))
                    times.append(t)
                    seqs.append(seq)

    def _receive(self, sock):
        src, ident, by_addr = self.socks[sock]
        data, anc, _, peer = sock.recvmsg(2048, 64)
        t = time.time()
        for level, kind, val in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and \
                    len(val) >= 16:
                sec, nsec = struct.unpack_from("qq", val)
                t = sec + nsec / 1e9
        data = data[(data[0] & 0xF) * 4:]
        if len(data) < 8 or data[0] != 0:
            return
        rid, rseq = struct.unpack("!HH", data[4:8])
        d = by_addr.get(peer[0])
        if rid == ident and d is not None:
            with self.lock:
                self.answered.setdefault((src, d, rseq), t)

    def _drain(self):
        """Read every answer queued; answers that arrived before the
        time this sets are known (so an echo missing then is lost, not
        merely unread by a starved prober)."""
        t = time.time()
        while True:
            rd, _, _ = select.select(list(self.socks), [], [], 0)
            if not rd:
                break
            for sock in rd:
                self._receive(sock)
        self.drained_at = t

    def _run(self):
        seq = 0
        nxt = time.monotonic()
        try:
            while not self.halt.is_set():
                now = time.monotonic()
                if not self.resumed.is_set():
                    self._drain()
                    self.resumed.wait(0.1)
                    nxt = time.monotonic()
                    continue
                if now >= nxt:
                    self._drain()
                    seq = (seq + 1) & 0xFFFF
                    self._send_round(seq)
                    self.rounds += 1
                    nxt += self.interval
                    if nxt < now:       # a stalled guest: no catch-up burst
                        nxt = now + self.interval
                    continue
                rd, _, _ = select.select(list(self.socks), [], [],
                                         nxt - now)
                for sock in rd:
                    self._receive(sock)
        except OSError as e:
            self.errors.append(str(e))

    def settled(self, t0, last=3):
        """Once, for every live pair, the `last` newest echoes sent after
        t0 and before the prober last read its sockets were answered,
        and each earlier one is resolved (answered, or lost: no answer
        within answer_wait): {"reachable_s": when the slowest pair got
        through for good (the send time of its first answered echo
        after its last lost one; 0 if it lost none; an upper bound),
        "last_lost_s": the send time of the latest lost echo (a lower
        bound: a stalled prober sends late, it does not lose), "lost": echoes lost
        after t0, "pairs_lost": pairs that lost any, "pairs": pairs};
        None before that."""
        live = set(self.targets())
        cut = self.drained_at
        worst, last_lost, lost, pairs_lost, pairs = 0.0, 0.0, 0, 0, 0
        with self.lock:
            items = [(k, v[0][bisect.bisect_left(v[0], t0):
                              bisect.bisect_left(v[0], cut)],
                      v[1][bisect.bisect_left(v[0], t0):
                           bisect.bisect_left(v[0], cut)])
                     for k, v in self.sent.items()]
            answered = dict(self.answered)
        for (s, d), times, seqs in items:
            if s not in live or d not in live:
                continue
            pairs += 1
            if len(times) < last:
                return None
            res = []
            for t, seq in zip(times, seqs):
                a = answered.get((s, d, seq))
                ok = a is not None and a - t <= self.answer_wait
                if not ok and a is None and cut - t <= self.answer_wait:
                    if len(res) < len(times) - last:
                        return None     # lost or late: not known yet
                res.append((t, ok))
            if not all(ok for _, ok in res[-last:]):
                return None
            bad = [i for i, (_, ok) in enumerate(res) if not ok]
            if bad:
                lost += len(bad)
                pairs_lost += 1
                worst = max(worst, res[bad[-1] + 1][0] - t0)
                last_lost = max(last_lost, res[bad[-1]][0] - t0)
        return {"reachable_s": round(worst, 3),
                "last_lost_s": round(last_lost, 3), "lost": lost,
                "pairs_lost": pairs_lost, "pairs": pairs}

    def missing(self, t0):
        """Pairs whose latest resolved echo after t0 was lost."""
        live = set(self.targets())
        now = self.drained_at
        out = []
        with self.lock:
            for (s, d), (times, seqs) in self.sent.items():
                if s not in live or d not in live:
                    continue
                for t, seq in reversed(list(zip(times, seqs))):
                    if t < t0:
                        break
                    a = self.answered.get((s, d, seq))
                    if a is not None and a - t <= self.answer_wait:
                        break
                    if now - t > self.answer_wait:
                        out.append((s, d))
                        break
        return out
