package io.zklock.internal.rules;

/**
 * Whether a batching client holds its calls for the next reply or sends them at once: a pure rule
 * over what one client has outstanding.
 *
 * <p>A held call waits for the next reply, then goes with the others queued meanwhile in one {@code
 * multi}. The wait is paid by the call's thread; what it buys is fewer packets for the server, and
 * that repays the wait only when many calls wait together. A lock's request has at most two calls
 * outstanding at a time (its create and the listing behind it, or its release's delete), so the
 * calls outstanding count the threads at work: with few of them a batch carries one or two calls,
 * and the threads wait for nothing (a client of eight sessions of four threads measured 0.75x
 * unbatched holding whenever three packets were in flight); with many, batches of ten and more cut
 * the packets tenfold (one session of 32 threads: 0.34 packets per acquisition, 3x unbatched).
 *
 * <p>So a call is held only when both hold: at least {@code atOnceBelow} packets are in flight (a
 * lone thread's create, its listing and its release's delete never wait), and at least {@code
 * holdFrom} calls are outstanding, in flight or queued. Below either, what is queued goes at once.
 * While a reply's callbacks run, the window counts as full: what that reply's callbacks, and the
 * threads they wake, issue meanwhile goes in the send the reply earned, once they have run.
 */
public final class BatchHold {
  private BatchHold() {}

  /**
   * @param packetsInFlight packets sent and not answered
   * @param atOnceBelow packets in flight below which a call goes at once
   * @param callsOutstanding calls in flight (each op of a multi) and queued
   * @param holdFrom calls outstanding from which a call may be held (0: whenever {@code
   *     atOnceBelow} packets are in flight)
   * @return whether queued calls wait for the next reply
   */
  public static boolean holds(
      int packetsInFlight, int atOnceBelow, int callsOutstanding, int holdFrom) {
    return holds(packetsInFlight, atOnceBelow, callsOutstanding, holdFrom, false);
  }

  /**
   * As {@link #holds(int, int, int, int)}, and while a reply's callbacks run ({@code answering}):
   * the flush that reply earned comes after its callbacks, so a call issued meanwhile (the release
   * of a thread its listing just granted) waits for that flush, whatever the window, rather than
   * going alone or for the reply after.
   *
   * @param answering whether a reply's callbacks are running
   */
  public static boolean holds(
      int packetsInFlight, int atOnceBelow, int callsOutstanding, int holdFrom, boolean answering) {
    return (answering || packetsInFlight >= atOnceBelow) && callsOutstanding >= holdFrom;
  }
}
