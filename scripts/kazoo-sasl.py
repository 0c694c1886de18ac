#!/usr/bin/python3
"""kazoo-sasl.py connects kazoo with SASL (DIGEST-MD5) and reports how it ends.

It lets zksim's tests (internal/interop, TestKazoo_SASLWithoutJAAS) see
what kazoo's SASL client does on a server with no SASL configured (no JAAS
Server section), as ZooKeeper 3.8.0 and zksim serve are by default: every
SASL token it sends is answered with an empty one, it answers that with
another, and only the server closing the connection ends the loop.

Usage:
    kazoo-sasl.py --hosts H:P [--timeout SECONDS] [--wait SECONDS]

Protocol, one line per step on stdout (flushed at once):
    started              start() returned (kazoo reports CONNECTED before SASL)
    ended <STATE>        the state kazoo closed the session with, from its
                         log (AUTH_FAILED: "Connection dropped in SASL")
    hung                 kazoo still had the session after --wait seconds
It then stops the client (after "hung" it cannot: it just exits) and
exits 0; errors go to stderr with exit 1.

Use Debian's interpreter (/usr/bin/python3), where python3-kazoo and its
dependency python3-pure-sasl live.
"""
import argparse
import logging
import os
import sys
import threading

from kazoo.client import KazooClient
from kazoo.protocol.states import KazooState


class ClosedStates(logging.Handler):
    """Keeps the states kazoo logs its session closed with, in order: the
    client's own client_state has moved on to CLOSED by the time a
    listener could read it."""

    def __init__(self):
        super().__init__()
        self.states = []

    def emit(self, record):
        msg = record.getMessage()
        if msg.startswith("Zookeeper session closed, state: "):
            self.states.append(msg.rsplit(" ", 1)[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", required=True)
    ap.add_argument("--timeout", type=float, default=2.0,
                    help="session timeout asked for, in seconds")
    ap.add_argument("--wait", type=float, default=20.0,
                    help="how long to wait for kazoo to give up")
    args = ap.parse_args()
    closed = ClosedStates()
    log = logging.getLogger("kazoo.client")
    log.addHandler(closed)
    log.setLevel(logging.INFO)
    lost = threading.Event()
    client = KazooClient(hosts=args.hosts, timeout=args.timeout, sasl_options={
        "mechanism": "DIGEST-MD5", "username": "baduser", "password": "badpassword"})
    client.add_listener(lambda state: lost.set() if state == KazooState.LOST else None)
    client.start(timeout=10)
    print("started", flush=True)
    if lost.wait(args.wait):
        client.stop()
        print("ended", (closed.states or ["?"])[0], flush=True)
    else:
        print("hung", flush=True)
        # stop() would wait for the connection thread, which is stuck in
        # its SASL loop.
        os._exit(0)
    client.close()


if __name__ == "__main__":
    sys.exit(main())
