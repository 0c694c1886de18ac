#!/usr/bin/python3
"""kazoo-lock-faults.py drives one stock kazoo Lock step by step.

zksim's fault tests (internal/interop, TestKazooLock_*) run it against the
fake ZooKeeper server (internal/netserver), inject a fault between two steps,
and read what kazoo's Lock recipe did. See docs/locks-under-faults.md.

Usage:
    kazoo-lock-faults.py --hosts H:P[,H:P...] --path /lock/dir
                         [--session-timeout SECONDS] [--timeout SECONDS]

Commands, one per line on stdin:
    acquire   start lock.acquire() (blocking, no timeout) in a thread
    check     report what the Lock object believes
    release   lock.release()
    cancel    lock.cancel(): a pending acquire ends with CancelledError
    quit      (or EOF) cancel a pending acquire, close the session, exit 0

Lines on stdout, one per step, flushed at once:
    session 0x<id>                     connected (the first line but for state lines)
    acquired <node>                    acquire() returned True; <node> is the lock node's name
    not-acquired                       acquire() returned False
    error <ExceptionClass>: <message>  acquire() or release() raised
    check is_acquired=<bool> node=<node|None> session=<0x<id>|None>
    released <bool>                    release() returned
    state <CONNECTED|SUSPENDED|LOST>   kazoo's connection listener, at any time
    bye                                the session is closed

Use Debian's interpreter (/usr/bin/python3), where python3-kazoo lives;
another python3 earlier on PATH (pyenv) may not have kazoo.
"""
import argparse
import sys
import threading

from kazoo.client import KazooClient
from kazoo.recipe.lock import Lock

_out = threading.Lock()


def say(line):
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def session(client):
    cid = client.client_id
    return "0x%x" % cid[0] if cid else "None"


def acquire(lock):
    try:
        got = lock.acquire()
    except Exception as e:  # report every failure as one line
        say("error %s: %s" % (type(e).__name__, e))
        return
    say("acquired %s" % lock.node if got else "not-acquired")


def release(lock):
    try:
        say("released %s" % lock.release())
    except Exception as e:
        say("error %s: %s" % (type(e).__name__, e))


def serve(client, lock, timeout):
    worker = None
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "acquire":
            worker = threading.Thread(target=acquire, args=(lock,), daemon=True)
            worker.start()
        elif cmd == "check":
            say("check is_acquired=%s node=%s session=%s" % (lock.is_acquired, lock.node, session(client)))
        elif cmd == "release":
            release(lock)
        elif cmd == "cancel":
            lock.cancel()
        elif cmd == "quit":
            break
        else:
            say("error ValueError: unknown command %r" % cmd)
    if worker is not None and worker.is_alive():
        lock.cancel()
        worker.join(timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hosts", required=True, help="comma-separated host:port list")
    ap.add_argument("--path", required=True, help="the lock directory")
    ap.add_argument("--session-timeout", type=float, default=4.0,
                    help="session timeout asked of the server, seconds")
    ap.add_argument("--timeout", type=float, default=20.0,
                    help="seconds to wait for the first session and for a cancelled acquire")
    args = ap.parse_args()

    client = KazooClient(hosts=args.hosts, timeout=args.session_timeout)
    # A listener returning a true value is removed; say() returns None.
    client.add_listener(lambda state: say("state %s" % state))
    client.start(timeout=args.timeout)
    try:
        say("session %s" % session(client))
        serve(client, Lock(client, args.path, "kazoo-lock-faults.py"), args.timeout)
    finally:
        client.stop()
        client.close()
    say("bye")
    return 0


if __name__ == "__main__":
    sys.exit(main())
