#!/usr/bin/python3
"""kazoo-recipes-faults.py drives one stock kazoo recipe step by step.

zksim's fault tests (internal/interop, TestKazooSemaphore_*,
TestKazooElection_*, TestKazooBarrier_*, TestKazooDoubleBarrier_*) run it
against the fake ZooKeeper server (internal/netserver), inject a fault
between two steps, and read what kazoo's recipe did. See
docs/recipes-under-faults.md. The recipes are kazoo's own classes,
unmodified: Lock, Semaphore, Election, Barrier and DoubleBarrier
(TestKazooLock_*: docs/locks-under-faults.md).

Usage:
    kazoo-recipes-faults.py --hosts H:P[,H:P...] --path /node
                            --recipe lock|semaphore|election|barrier|double
                            [--max-leases N] [--members N]
                            [--session-timeout SECONDS] [--timeout SECONDS]

Commands, one per line on stdin (each recipe takes its own; every one
takes check and quit):
    lock:      acquire   Lock.acquire() (blocking, no timeout) in a thread
               release   Lock.release()
               cancel    Lock.cancel(): a pending acquire ends with
                         CancelledError
    semaphore: acquire   Semaphore.acquire() (blocking) in a thread
               release   Semaphore.release()
    election:  run       Election.run(leader) in a thread; leader() says
                         "leading" and returns on resign
               resign    make leader() return
    barrier:   create    Barrier.create()
               remove    Barrier.remove()
               wait      Barrier.wait() (no timeout) in a thread
    double:    enter     DoubleBarrier.enter() in a thread
               leave     DoubleBarrier.leave() in a thread
    check      report what the recipe object believes
    quit       (or EOF) cancel what can be cancelled, close the session, exit 0

Lines on stdout, one per step, flushed at once:
    session 0x<id>                     connected (the first line but for state lines)
    node <name>                        double: the member node's name (second line)
    acquired <name> | not-acquired     lock, semaphore: acquire() returned
    released <bool>                    lock, semaphore: release() returned
    leading                            election: the leader function runs
    run-returned                       election: run() returned
    created | removed <bool>           barrier: create() / remove() returned
    waited <bool>                      barrier: wait() returned
    entered participating=<bool>       double: enter() returned
    left participating=<bool>          double: leave() returned
    error <ExceptionClass>: <message>  a call raised
    check <key>=<value> ...            what the object believes, and the session
    bye                                the session is closed
and side lines, which may come at any time, between any two of those:
    * state <CONNECTED|SUSPENDED|LOST> kazoo's connection listener
    * listed <path> <count>            a get_children call of the recipe
                                       returned <count> children: a test
                                       knows the recipe is past it (the
                                       client is instrumented, the recipe
                                       is not)

Use Debian's interpreter (/usr/bin/python3), where python3-kazoo lives;
another python3 earlier on PATH (pyenv) may not have kazoo.
"""
import argparse
import sys
import threading

from kazoo.client import KazooClient
from kazoo.recipe.barrier import Barrier, DoubleBarrier
from kazoo.recipe.election import Election
from kazoo.recipe.lock import Lock, Semaphore

_out = threading.Lock()


def say(line):
    with _out:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class TracingClient(KazooClient):
    """A KazooClient that says when a get_children call has returned."""

    def get_children(self, path, *args, **kwargs):
        children = super(TracingClient, self).get_children(path, *args, **kwargs)
        say("* listed %s %d" % (path, len(children)))
        return children


def session(client):
    cid = client.client_id
    return "0x%x" % cid[0] if cid else "None"


def background(fn, report):
    """Runs fn() on a daemon thread and says report(result), or the error."""
    def run():
        try:
            result = fn()
        except Exception as e:  # report every failure as one line
            say("error %s: %s" % (type(e).__name__, e))
            return
        say(report(result))
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def call(fn, report):
    try:
        say(report(fn()))
    except Exception as e:
        say("error %s: %s" % (type(e).__name__, e))


class LockDriver(object):
    def __init__(self, client, args):
        self.client = client
        self.lock = Lock(client, args.path, "kazoo-recipes-faults.py")

    def handle(self, cmd):
        if cmd == "acquire":
            return background(self.lock.acquire, lambda got: "acquired %s" % self.lock.node if got else "not-acquired")
        if cmd == "release":
            call(self.lock.release, lambda r: "released %s" % r)
        elif cmd == "cancel":
            self.lock.cancel()
        elif cmd == "check":
            say("check is_acquired=%s node=%s session=%s" % (self.lock.is_acquired, self.lock.node, session(self.client)))
        else:
            unknown(cmd)

    def cancel(self):
        self.lock.cancel()
        return True


class SemaphoreDriver(object):
    def __init__(self, client, args):
        self.client = client
        self.sem = Semaphore(client, args.path, "kazoo-recipes-faults.py", max_leases=args.max_leases)

    def node(self):
        return self.sem.create_path.rsplit("/", 1)[1]

    def handle(self, cmd):
        if cmd == "acquire":
            return background(self.sem.acquire, lambda got: "acquired %s" % self.node() if got else "not-acquired")
        if cmd == "release":
            call(self.sem.release, lambda r: "released %s" % r)
        elif cmd == "check":
            say("check is_acquired=%s node=%s session=%s" % (self.sem.is_acquired, self.node(), session(self.client)))
        else:
            return unknown(cmd)

    def cancel(self):
        self.sem.cancel()
        return True


class ElectionDriver(object):
    def __init__(self, client, args):
        self.client = client
        self.election = Election(client, args.path, "kazoo-recipes-faults.py")
        self.resigned = threading.Event()
        self.leading = False

    def leader(self):
        self.leading = True
        say("leading")
        self.resigned.wait()
        self.leading = False

    def handle(self, cmd):
        if cmd == "run":
            return background(lambda: self.election.run(self.leader), lambda _: "run-returned")
        if cmd == "resign":
            self.resigned.set()
        elif cmd == "check":
            lock = self.election.lock
            say("check leading=%s is_acquired=%s node=%s session=%s" % (
                self.leading, lock.is_acquired, lock.node, session(self.client)))
        else:
            return unknown(cmd)

    def cancel(self):
        self.resigned.set()
        self.election.cancel()
        return True


class BarrierDriver(object):
    def __init__(self, client, args):
        self.client = client
        self.barrier = Barrier(client, args.path)

    def handle(self, cmd):
        if cmd == "create":
            call(self.barrier.create, lambda _: "created")
        elif cmd == "remove":
            call(self.barrier.remove, lambda r: "removed %s" % r)
        elif cmd == "wait":
            return background(self.barrier.wait, lambda r: "waited %s" % r)
        elif cmd == "check":
            say("check exists=%s session=%s" % (self.client.exists(self.barrier.path) is not None, session(self.client)))
        else:
            return unknown(cmd)

    def cancel(self):
        return False  # Barrier.wait cannot be cancelled; its thread is a daemon


class DoubleDriver(object):
    def __init__(self, client, args):
        self.client = client
        self.barrier = DoubleBarrier(client, args.path, args.members, "kazoo-recipes-faults.py")
        say("node %s" % self.barrier.node_name)

    def handle(self, cmd):
        b = self.barrier
        if cmd == "enter":
            return background(b.enter, lambda _: "entered participating=%s" % b.participating)
        if cmd == "leave":
            return background(b.leave, lambda _: "left participating=%s" % b.participating)
        if cmd == "check":
            say("check participating=%s node=%s session=%s" % (b.participating, b.node_name, session(self.client)))
        else:
            return unknown(cmd)

    def cancel(self):
        return False  # DoubleBarrier cannot be cancelled; its threads are daemons


DRIVERS = {"lock": LockDriver, "semaphore": SemaphoreDriver, "election": ElectionDriver, "barrier": BarrierDriver, "double": DoubleDriver}


def unknown(cmd):
    say("error ValueError: unknown command %r" % cmd)


def serve(driver, timeout):
    workers = []
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "quit":
            break
        worker = driver.handle(cmd)
        if worker is not None:
            workers.append(worker)
    # A call still pending is cancelled and waited for, if the recipe can
    # cancel it; otherwise its daemon thread is left to die with us.
    if any(w.is_alive() for w in workers) and driver.cancel():
        for w in workers:
            w.join(timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hosts", required=True, help="comma-separated host:port list")
    ap.add_argument("--path", required=True, help="the recipe's node")
    ap.add_argument("--recipe", required=True, choices=sorted(DRIVERS), help="which kazoo recipe")
    ap.add_argument("--max-leases", type=int, default=1, help="semaphore: max_leases")
    ap.add_argument("--members", type=int, default=2, help="double: num_clients")
    ap.add_argument("--session-timeout", type=float, default=4.0,
                    help="session timeout asked of the server, seconds")
    ap.add_argument("--timeout", type=float, default=5.0,
                    help="seconds to wait for the first session, and for a cancelled call at quit")
    args = ap.parse_args()

    client = TracingClient(hosts=args.hosts, timeout=args.session_timeout)
    # A listener returning a true value is removed; say() returns None.
    client.add_listener(lambda state: say("* state %s" % state))
    client.start(timeout=args.timeout)
    try:
        say("session %s" % session(client))
        serve(DRIVERS[args.recipe](client, args), args.timeout)
    finally:
        client.stop()
        client.close()
    say("bye")
    return 0


if __name__ == "__main__":
    sys.exit(main())
