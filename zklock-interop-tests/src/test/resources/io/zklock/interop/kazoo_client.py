# One kazoo client (one ZooKeeper session), driven line by line from stdin by the tests' harness
# (io.zklock.interop.Kazoo). Run by Debian's /usr/bin/python3 with Debian's python3-kazoo.
#
#   argv: <connect string> <session timeout, seconds>
#
# Commands, one per line: "<handle> <command> <args...>". Replies, one per line on stdout:
# "<handle> <event> <args...>"; the client's own news use the handle "-".
#
#   h lock <path> <identifier> [timeout]      kazoo's Lock; blocks in a thread of its own
#   h trylock <path> <identifier>             Lock.acquire(blocking=False)
#   h rlock <path> <identifier> [timeout]     ReadLock
#   h wlock <path> <identifier> [timeout]     WriteLock
#   h semaphore <path> <identifier> <max> [timeout]
#   h election <path> <identifier>            Election.run: "elected", leads until "h release"
#   h release                                 -> "h released"
#   h cancel                                  -> the waiting acquire ends ("h cancelled")
#   h contenders                              -> "h contenders <json list>"
#   - session                                 -> "- session <hex id> <hex password>"
#   - stop                                    -> closes the session cleanly, "- stopped", exits
#
# Acquisitions answer "h acquired", "h busy" (not acquired without waiting), "h timeout",
# "h cancelled" or "h error <type> <message>".
import json
import sys
import threading

from kazoo.client import KazooClient
from kazoo.exceptions import CancelledError, LockTimeout

_out = threading.Lock()


def out(*parts):
    with _out:
        sys.stdout.write(" ".join(str(p) for p in parts).replace("\n", " ") + "\n")
        sys.stdout.flush()


hosts = sys.argv[1]
session_timeout = float(sys.argv[2])
zk = KazooClient(hosts=hosts, timeout=session_timeout)
zk.add_listener(lambda state: out("-", "state", state))
zk.start(timeout=30)
sid, password = zk.client_id
out("-", "ready", "%x" % sid)

recipes = {}
leading = {}


def acquire(h, recipe, **kw):
    try:
        ok = recipe.acquire(**kw)
        out(h, "acquired" if ok else "busy")
    except LockTimeout:
        out(h, "timeout")
    except CancelledError:
        out(h, "cancelled")
    except Exception as e:  # reported to the test, which decides
        out(h, "error", type(e).__name__, e)


def timeout_of(args, i):
    return float(args[i]) if len(args) > i else None


def elect(h, election):
    done = threading.Event()
    leading[h] = done

    def lead():
        out(h, "elected")
        done.wait()

    try:
        election.run(lead)
        out(h, "released" if done.is_set() else "cancelled")
    except Exception as e:
        out(h, "error", type(e).__name__, e)


def start(target, *args, **kw):
    threading.Thread(target=target, args=args, kwargs=kw, daemon=True).start()


for line in sys.stdin:
    parts = line.split()
    if len(parts) < 2:
        continue
    h, cmd, args = parts[0], parts[1], parts[2:]
    try:
        if cmd in ("lock", "rlock", "wlock"):
            make = {"lock": zk.Lock, "rlock": zk.ReadLock, "wlock": zk.WriteLock}[cmd]
            recipes[h] = make(args[0], args[1])
            start(acquire, h, recipes[h], timeout=timeout_of(args, 2))
        elif cmd == "xlock":
            # a Lock told of Curator's and Go's names, as kazoo's extra_lock_patterns allows
            recipes[h] = zk.Lock(args[0], args[1], extra_lock_patterns=["-lock-"])
            start(acquire, h, recipes[h], timeout=timeout_of(args, 2))
        elif cmd == "trylock":
            recipes[h] = zk.Lock(args[0], args[1])
            start(acquire, h, recipes[h], blocking=False)
        elif cmd == "semaphore":
            recipes[h] = zk.Semaphore(args[0], args[1], max_leases=int(args[2]))
            start(acquire, h, recipes[h], timeout=timeout_of(args, 3))
        elif cmd == "election":
            recipes[h] = zk.Election(args[0], args[1])
            start(elect, h, recipes[h])
        elif cmd == "release":
            if h in leading:
                leading.pop(h).set()  # "released" comes when run() returns
            else:
                recipes[h].release()
                out(h, "released")
        elif cmd == "cancel":
            recipes[h].cancel()
        elif cmd == "contenders":
            r = recipes[h]
            names = r.lease_holders() if hasattr(r, "lease_holders") else r.contenders()
            out(h, "contenders", json.dumps(names))
        elif cmd == "session":
            sid, password = zk.client_id
            out("-", "session", "%x" % sid, password.hex())
        elif cmd == "stop":
            zk.stop()
            zk.close()
            out("-", "stopped")
            break
        else:
            out(h, "error", "UnknownCommand", cmd)
    except Exception as e:
        out(h, "error", type(e).__name__, e)
