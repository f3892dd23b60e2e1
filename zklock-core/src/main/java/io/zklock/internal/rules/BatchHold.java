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
    return packetsInFlight >= atOnceBelow && callsOutstanding >= holdFrom;
  }
}
