"""A pytest plugin that runs kazoo 2.8's own tests against zksim serve.

internal/kazoosuite loads it with `-p zksim_kazoo_shim` (this directory on
PYTHONPATH). On import it replaces one function of kazoo's test harness,
kazoo.testing.harness.get_global_cluster, whose result the harness reads
as KazooTestHarness.cluster: in place of ZookeeperCluster's Java servers
it returns a ServeCluster, one `zksim serve -followers N-1` process whose
members are stopped and started through serve's control interface (POST
/members/{i}/stop and /start, on the same port, with the token serve
prints before the control line). Nothing else of kazoo is
changed: its tests and the rest of its harness (expire_session and
lose_connection inject the failure inside the client) run as shipped.

Environment: ZKSIM_BIN, the zksim binary (required); ZKSIM_SERVE_ARGS,
extra serve flags, space-separated (the Java servers' configuration from
kazoo's harness: reconfig, super digest, maxClientCnxns=0);
ZOOKEEPER_CLUSTER_SIZE as for kazoo's harness (default 3);
ZOOKEEPER_JAAS_AUTH=digest (test_sasl sets it) gives serve, with
-sasl-users, the JAAS file kazoo's harness gives its Java servers, read
out of the harness's own source; ZKSIM_SERVE_LOG=FILE appends serve's
stderr to FILE.
"""

import atexit
import ctypes
import inspect
import os
import re
import signal
import subprocess
import tempfile
import urllib.request

import kazoo.testing.harness as harness

_ADDR_LINE = re.compile(r"^zksim serve: (?:leader|follower \d+) on (\S+)$")
_CONTROL_LINE = re.compile(r"^zksim serve: control on (\S+)$")
_TOKEN_LINE = re.compile(r"^zksim serve: control token (\S+)$")

# The environment kazoo's get_global_cluster compares to decide whether its
# cluster must be rebuilt (test_sasl sets ZOOKEEPER_JAAS_AUTH).
_CONF_KEYS = ("ZOOKEEPER_CLUSTER_SIZE", "ZOOKEEPER_JAAS_AUTH")


# The JAAS Server section of kazoo's get_global_cluster for
# ZOOKEEPER_JAAS_AUTH == "digest": the first "Server { ... };" after the
# word "digest" in its source.
_JAAS_DIGEST = re.compile(r'"digest".*?(Server \{.*?\};)', re.S)

# kazoo's own get_global_cluster, before this module replaces it.
_kazoo_get_global_cluster = harness.get_global_cluster


def _digest_jaas_file():
    """Writes the JAAS file kazoo's harness gives its Java servers for
    digest SASL, and returns its path; fails if the harness has none."""
    m = _JAAS_DIGEST.search(inspect.getsource(_kazoo_get_global_cluster))
    if not m:
        raise RuntimeError("no digest JAAS Server section in kazoo's get_global_cluster")
    fd, path = tempfile.mkstemp(prefix="zksim-kazoo-jaas-", suffix=".conf")
    with os.fdopen(fd, "w") as f:
        f.write(m.group(1))
    atexit.register(os.unlink, path)
    return path


def _die_with_parent():
    """Ends serve with this Python process, however it ends (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class ServeProcess(object):
    """One running zksim serve: its members' addresses and control URL."""

    def __init__(self, size, jaas=None):
        bin_path = os.environ.get("ZKSIM_BIN")
        if not bin_path:
            raise RuntimeError("ZKSIM_BIN is not set")
        args = [bin_path, "serve", "-addr", "127.0.0.1:0",
                "-control", "127.0.0.1:0", "-followers", str(size - 1)]
        args += os.environ.get("ZKSIM_SERVE_ARGS", "").split()
        if jaas:
            args += ["-sasl-users", jaas]
        log = os.environ.get("ZKSIM_SERVE_LOG")
        stderr = open(log, "ab") if log else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=stderr, preexec_fn=_die_with_parent)
        if log:
            stderr.close()
        self.addrs = []
        self.control = None
        self.token = None
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            m = _ADDR_LINE.match(line)
            if m:
                self.addrs.append(m.group(1))
            m = _TOKEN_LINE.match(line)
            if m:
                self.token = m.group(1)
            m = _CONTROL_LINE.match(line)
            if m:
                self.control = m.group(1)
                break
        # serve prints nothing more on stdout; closing the pipe is safe.
        self.proc.stdout.close()
        if self.control is None or self.token is None or len(self.addrs) != size:
            self.kill()
            raise RuntimeError("zksim serve %s listed %d members and control %s"
                               % (args, len(self.addrs), self.control))

    def post(self, path):
        req = urllib.request.Request(
            self.control + path, data=b"", method="POST",
            headers={"Authorization": "Bearer " + self.token})
        with urllib.request.urlopen(req, timeout=10) as resp:
            resp.read()

    def alive(self):
        return self.proc.poll() is None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait()


class ServeMember(object):
    """One member, with the ManagedZooKeeper methods kazoo's tests call."""

    host = "127.0.0.1"

    def __init__(self, cluster, index):
        self._cluster = cluster
        self.index = index
        self._running = True

    @property
    def address(self):
        return self._cluster.proc.addrs[self.index]

    @property
    def client_port(self):
        return int(self.address.rsplit(":", 1)[1])

    @property
    def running(self):
        return self._running and self._cluster.proc.alive()

    def run(self):
        """Starts the member again, on its port, as a restarted server."""
        if self.running:
            return
        if not self._cluster.proc.alive():
            self._cluster.start()
            return
        self._cluster.proc.post("/members/%d/start" % self.index)
        self._running = True

    def stop(self):
        """Stops the member as a killed server: its clients fail over."""
        if not self.running:
            return
        self._cluster.proc.post("/members/%d/stop" % self.index)
        self._running = False

    def reset(self):
        # A member's data cannot be wiped alone: the tree is shared.
        self.stop()

    def destroy(self):
        self.stop()


class ServeCluster(object):
    """ZookeeperCluster's API over one zksim serve process."""

    def __init__(self, size, jaas=None):
        self.size = size
        self.jaas = jaas
        self.proc = ServeProcess(size, jaas)
        self._servers = [ServeMember(self, i) for i in range(size)]

    def __getitem__(self, k):
        return self._servers[k]

    def __iter__(self):
        return iter(self._servers)

    def start(self):
        if not self.proc.alive():
            self.proc = ServeProcess(self.size, self.jaas)
            for m in self._servers:
                m._running = True
            return
        for m in reversed(self._servers):
            m.run()

    def stop(self):
        for m in self._servers:
            m.stop()

    def terminate(self):
        self.proc.kill()

    def reset(self):
        # As the Java cluster's reset wipes every server's data: the next
        # start serves an empty tree.
        self.proc.kill()


_cluster = None
_cluster_conf = None


def get_global_cluster():
    """kazoo's get_global_cluster, over zksim serve."""
    global _cluster, _cluster_conf
    conf = {k: os.environ.get(k) for k in _CONF_KEYS}
    if _cluster is not None:
        if conf == _cluster_conf:
            return _cluster
        _cluster.terminate()
        _cluster = None
    size = int(conf["ZOOKEEPER_CLUSTER_SIZE"] or
               harness.CLUSTER_DEFAULTS["ZOOKEEPER_CLUSTER_SIZE"])
    # Kerberos (gssapi) is not served: its tests skip without a KDC.
    jaas = _digest_jaas_file() if conf["ZOOKEEPER_JAAS_AUTH"] == "digest" else None
    _cluster = ServeCluster(size, jaas)
    _cluster_conf = conf
    atexit.register(_cluster.terminate)
    return _cluster


harness.get_global_cluster = get_global_cluster
