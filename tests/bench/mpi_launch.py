# SPDX-License-Identifier: GPL-2.0-or-later
"""MPI jobs on a torus-lab rack, one rank per node namespace, for
tests/vm/mpi_test.py and tests/bench/bench-coll.py (inside the test VM).

Open MPI's mpirun and MPICH's mpiexec run in the namespace of the first
node, under that node's address as host name, and start every rank
through mpi-netns-agent (their rsh launch agent), which runs it in its
own node's namespace under its own address; both talk TCP on tor0.
"""

import os
import subprocess
import time

from torus_lab import addr4

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT = os.path.join(HERE, "mpi-netns-agent")
# Debian's MPICH over UCX now and then never exits after MPI_Finalize
# (with the shim off too): a job that printed all it prints ends this
# long after
EXIT_GRACE = 10.0


def env(prefix):
    """The launchers' environment for a rack whose namespaces are named
    PREFIX x-y-z (the agent's rule)."""
    return dict(os.environ, COLL_NS_PREFIX=prefix,
                OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", TMPDIR="/var/tmp",
                OMPI_MCA_plm_rsh_agent=AGENT,
                OMPI_MCA_plm_rsh_no_tree_spawn="1",
                OMPI_MCA_mpi_yield_when_idle="1")


def command(rack, nodes, mpi, argv, rank_env, hostfile):
    """The command line that runs ARGV on each of NODES of RACK, one rank
    per node, under MPI ("openmpi" or "mpich"), with RANK_ENV ({name:
    value}) in every rank's environment; Open MPI's host list goes to
    the file HOSTFILE."""
    hosts = [addr4(c) for c in nodes]
    if mpi == "openmpi":
        with open(hostfile, "w") as f:
            f.write("".join("%s slots=1\n" % h for h in hosts))
        cmd = ["mpirun.openmpi", "--hostfile", hostfile, "-np",
               str(len(hosts)), "--map-by", "node",
               "--mca", "btl", "tcp,self",
               "--mca", "btl_tcp_if_include", "tor0",
               "--mca", "oob_tcp_if_include", "tor0"]
        for k, v in rank_env.items():
            cmd += ["-x", "%s=%s" % (k, v)]
    else:
        cmd = ["mpiexec.mpich", "-launcher", "rsh", "-launcher-exec", AGENT,
               "-hosts", ",".join(hosts), "-n", str(len(hosts)),
               "-ppn", "1", "-iface", "tor0",
               "-genv", "UCX_TLS", "tcp,self",
               "-genv", "UCX_NET_DEVICES", "tor0"]
        for k, v in rank_env.items():
            cmd += ["-genv", k, v]
    # the launcher's own node is named like the others (the agent's rule)
    return ["ip", "netns", "exec", rack.ns(nodes[0]), "unshare", "--uts",
            "sh", "-c", 'hostname %s; exec "$@"' % hosts[0], "sh"] + \
        cmd + list(argv)


def run(cmd, environ, base, printed_all, timeout):
    """Run CMD with its output straight to BASE.out and BASE.err (a job
    that hangs leaves what it printed), for at most TIMEOUT s; once
    printed_all(stdout, stderr) holds, a job still running EXIT_GRACE s
    later is ended.  Returns (returncode: None if ended so or at the
    timeout, stdout, stderr, seconds, whether it printed all)."""
    t0 = time.monotonic()
    with open(base + ".out", "w") as fo, open(base + ".err", "w") as fe:
        fe.write("# %s\n" % " ".join(cmd))
        fe.flush()
        p = subprocess.Popen(cmd, env=environ, stdout=fo, stderr=fe,
                             text=True, start_new_session=True)
        rc, finished = None, None
        while rc is None and time.monotonic() - t0 < timeout:
            try:
                rc = p.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
            if rc is None and finished is None and printed_all(*read(base)):
                finished = time.monotonic()
            if rc is None and finished and \
                    time.monotonic() - finished > EXIT_GRACE:
                break
        if rc is None:
            os.killpg(p.pid, 9)
            p.wait()
    so, se = read(base)
    return rc, so, se, time.monotonic() - t0, finished is not None


def read(base):
    """(stdout, stderr) of the job at BASE, without the command line."""
    with open(base + ".out") as fo, open(base + ".err") as fe:
        return fo.read(), fe.read().split("\n", 1)[-1]
