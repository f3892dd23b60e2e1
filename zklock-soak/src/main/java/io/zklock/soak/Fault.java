package io.zklock.soak;

/** The faults the orchestrator injects; every kind comes once per round, in a seeded order. */
public enum Fault {
  /** SIGKILL the ZooKeeper leader, restart it after 1-3 s, wait for a quorum. */
  KILL_LEADER,
  /** SIGKILL a ZooKeeper follower, restart it after 1-3 s, wait for a quorum. */
  KILL_FOLLOWER,
  /** Close every connection of one client once; it reconnects at once (session survives). */
  CUT_CLIENT,
  /**
   * Let one client's requests through but hold the replies for 0.2-0.6 session timeouts, then close
   * its connections: the server applied creates and deletes whose replies the client never gets
   * (zklock must find its node by attempt id, and must not orphan it). Timed so that a create is in
   * flight: the replies are muted just after one of the client's workers finished an iteration, and
   * the fault counts as aimed only once that client logged a new request under the mute.
   */
  LOSE_REPLIES,
  /** Black-hole one client's connections for 0.3-0.8 session timeouts (session survives). */
  BLACKHOLE_SHORT,
  /** Black-hole one client's connections for 1.5-2.5 session timeouts (session expires). */
  BLACKHOLE_LONG,
  /** Close one client's connections and refuse new ones for 1.5-2 session timeouts. */
  REFUSE_LONG,
  /**
   * SIGSTOP one client process (a holder if one is in its critical section) for 1.5-2.5 timeouts.
   */
  PAUSE_CLIENT,
  /** SIGKILL one client process (a holder if possible) and start a replacement. */
  KILL_CLIENT,
  /**
   * Black-hole a holder's connections (a mutex, writer or reader holder, preferably in a 12 s hold)
   * for longer than the session timeout and without healing until another process has been granted
   * a lock that conflicts with the one it holds (issue 12): a partition that heals only after the
   * lock has moved on. The cut-off holder's process runs all along, so it must have been told of
   * its loss before that grant.
   */
  ISOLATE_HOLDER
}
