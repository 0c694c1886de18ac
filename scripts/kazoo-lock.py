#!/usr/bin/python3
"""kazoo-lock.py takes a kazoo Lock, holds it until told, then releases it.

It lets zksim's tests (lock/ensemble_test.go, TestMutex_KazooInterop) see
how a Python client using kazoo's lock recipe and a Go client using
zksim's lock.Mutex behave on the same lock path. See docs/interop-kazoo.md.

Usage:
    kazoo-lock.py --hosts H1:P1,H2:P2 --path /lock/dir [--try]
                  [--zksim-names] [--timeout SECONDS]

Protocol, one line per step on stdout (flushed at once):
    session 0x<id>       connected
    acquired <node>      the lock is held; <node> is the lock node's name
    busy                 --try and the lock is held by someone else
    timeout              not acquired within --timeout seconds
Once "acquired", it reads one line from stdin (or EOF), releases the lock,
prints "released", closes its session and exits 0. Errors go to stderr
with exit status 1; bad arguments exit 2.

--zksim-names makes the lock interoperate with zksim's lock.Mutex: kazoo's
lock node is then named "lock-<uuid>-<seq>", the shape of zksim's own
nodes, and kazoo counts every "lock-<guid>-<seq>" child as a contender.
Without it, this is kazoo's stock Lock ("<uuid>__lock__<seq>").

Use Debian's interpreter (/usr/bin/python3), where python3-kazoo lives;
another python3 earlier on PATH (pyenv) may not have kazoo.
"""
import argparse
import sys
import uuid

from kazoo.client import KazooClient
from kazoo.exceptions import LockTimeout
from kazoo.recipe.lock import Lock

# zksim's exclusive lock nodes: "lock-<guid>-<10-digit sequence>", guid made
# of letters, digits, '.' and '_' (internal/queue, ValidGUIDPart).
ZKSIM_LOCK_PATTERN = r"^lock-[0-9A-Za-z._]+-"


class ZksimLock(Lock):
    """A kazoo Lock that lock.Mutex and it both see as a contender.

    lock.Mutex counts only children named "lock-<guid>-<seq>" (its own
    kind), and kazoo's stock node "<uuid>__lock__<seq>" is not one. This
    subclass names its node "lock-<uuid>-<seq>" and counts every such child
    (zksim's or its own) as a contender. It sets attributes that kazoo 2.8
    does not document (prefix, create_path, _EXCLUDE_NAMES): pin the kazoo
    version, and keep TestMutex_KazooInterop running against it.
    """

    _EXCLUDE_NAMES = [ZKSIM_LOCK_PATTERN]

    def __init__(self, client, path, identifier=None):
        super().__init__(client, path, identifier)
        self.prefix = "lock-%s-" % uuid.uuid4().hex
        self.create_path = self.path + "/" + self.prefix


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hosts", required=True, help="comma-separated host:port list")
    ap.add_argument("--path", required=True, help="the lock directory")
    ap.add_argument("--try", dest="try_", action="store_true",
                    help="do not wait: print busy if the lock is held")
    ap.add_argument("--zksim-names", action="store_true",
                    help="name nodes as zksim's lock.Mutex does, and count its nodes as contenders")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds to wait for the session and for the lock")
    args = ap.parse_args()

    client = KazooClient(hosts=args.hosts, timeout=10.0)
    client.start(timeout=args.timeout)
    try:
        return run(client, args)
    finally:
        client.stop()
        client.close()


def run(client, args):
    say("session 0x%x" % client.client_id[0])
    if args.zksim_names:
        lock = ZksimLock(client, args.path, "kazoo-lock.py")
    else:
        lock = Lock(client, args.path, "kazoo-lock.py")
    try:
        got = lock.acquire(blocking=not args.try_, timeout=None if args.try_ else args.timeout)
    except LockTimeout:
        say("timeout")
        return 0
    if not got:
        say("busy" if args.try_ else "timeout")
        return 0
    say("acquired %s" % lock.node)
    sys.stdin.readline()
    lock.release()
    say("released")
    return 0


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
