package io.zklock.sim;

import io.zklock.LockEvent;
import java.util.HashMap;
import java.util.Map;

/**
 * EVENTS: each request's lock events, as {@link LockEvent} documents them: REQUESTED, then QUEUED
 * only when it comes to wait at a new place (never twice at one place), then exactly one end of its
 * wait, and a grant ends with exactly one RELEASED or LOST.
 */
final class EventChecker {
  private static final class Req {
    final LockEvent first;
    int lastPosition = Integer.MAX_VALUE;
    long lastSession;
    boolean waitEnded;
    boolean granted;
    boolean holdEnded;

    Req(LockEvent first) {
      this.first = first;
    }
  }

  private final Sim sim;
  private final Map<String, Req> reqs = new HashMap<>();

  EventChecker(Sim sim) {
    this.sim = sim;
  }

  /**
   * Recorded with the world before it is thrown: the library catches (and logs) what a listener
   * throws, so a violation thrown alone would be lost in it.
   */
  private void fail(String text) {
    SimFailure f = new SimFailure("EVENTS", text);
    sim.fail(f);
    throw f;
  }

  void event(ZkNode node, LockEvent e) {
    if (e.type() == LockEvent.Type.SESSION) {
      return;
    }
    if (sim.trace.on()) {
      sim.trace.add(
          sim.now(),
          node.name,
          "event "
              + e.type()
              + " #"
              + e.requestId()
              + " "
              + e.kind()
              + " "
              + e.lockName()
              + (e.position() >= 0 ? " position " + e.position() : "")
              + (e.reason().isEmpty() ? "" : " " + e.reason()));
    }
    String key = node.name + "#" + e.requestId();
    Req r = reqs.get(key);
    if (e.type() == LockEvent.Type.REQUESTED) {
      if (r != null) {
        fail(node.name + ": request " + e.requestId() + " told REQUESTED twice");
      }
      reqs.put(key, new Req(e));
      return;
    }
    if (r == null) {
      fail(node.name + ": " + e.type() + " of request " + e.requestId() + " never told REQUESTED");
      return;
    }
    switch (e.type()) {
      case QUEUED -> {
        if (r.waitEnded) {
          fail(node.name + ": request " + e.requestId() + " told QUEUED after its wait ended");
        }
        // one queue per request (a semaphore's admission then lease, a multi-lock's parts are
        // several queues, whose positions are not comparable)
        boolean oneQueue = !e.kind().equals("semaphore") && !e.kind().equals("multi");
        if (oneQueue && e.position() >= r.lastPosition && e.sessionId() == r.lastSession) {
          fail(
              node.name
                  + ": request "
                  + e.requestId()
                  + " ("
                  + e.kind()
                  + " "
                  + e.lockName()
                  + ") told QUEUED at position "
                  + e.position()
                  + " after QUEUED at position "
                  + r.lastPosition
                  + " on the same session: told twice at one place");
        }
        r.lastPosition = e.position();
        r.lastSession = e.sessionId();
      }
      case GRANTED, PASSED, TIMED_OUT, CANCELLED, FAILED -> {
        if (r.waitEnded) {
          fail(node.name + ": request " + e.requestId() + " told the end of its wait twice: " + e);
        }
        r.waitEnded = true;
        r.granted = e.type() == LockEvent.Type.GRANTED;
      }
      case RELEASED, LOST -> {
        if (e.isCoordination() && e.type() == LockEvent.Type.LOST) {
          if (r.waitEnded) {
            fail(node.name + ": request " + e.requestId() + " told the end of its wait twice");
          }
          r.waitEnded = true;
          return;
        }
        if (!r.granted) {
          fail(node.name + ": request " + e.requestId() + " told " + e.type() + " without a grant");
        }
        if (r.holdEnded) {
          fail(node.name + ": request " + e.requestId() + " told the end of its hold twice");
        }
        r.holdEnded = true;
      }
      default -> {}
    }
  }
}
