package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * {@link HeardProof}: the instant zklock's session deadline counts from is never later than the
 * leader's last news of the session, on a model of how a ZooKeeper ensemble hears from a session
 * connected to a follower (read from ZooKeeper's source: {@code Leader.lead} pings every learner
 * every half tick; {@code Learner.ping} answers with the sessions it heard from since its previous
 * answer; {@code LearnerHandler} touches them as it reads the answer, and hands a forwarded {@code
 * sync} to the request pipeline without touching; the leader answers the sync on its stream to the
 * follower, which answers the client). Each link between the leader and the follower is one ordered
 * stream, cut for good at a random instant.
 */
class HeardProofPropertiesTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * One follower F, its client's heartbeats, the leader's pings, a cut of F's links to the leader:
   * at every answer the client hears, the rule's instant is no later than the leader's last touch
   * of the session (so the leader cannot expire it before that instant + T).
   */
  @Property(tries = 2000)
  void provenAt_isNeverLaterThanTheLeadersLastTouch(@ForAll long seed) {
    Ensemble e = new Ensemble(new SplittableRandom(seed));
    e.run();
    assertThat(e.violations)
        .as("answers at which the rule ran ahead of the leader: %s", e)
        .isEmpty();
  }

  /** The same model: a follower cut off right after answering proves nothing newer from then on. */
  @Property(tries = 500)
  void aFollowerCutOffRightAfterAnswering_neverLetsTheRuleRunAhead(@ForAll long seed) {
    Ensemble e = new Ensemble(new SplittableRandom(seed));
    e.cutRightAfterAnAnswer = true;
    e.run();
    assertThat(e.violations).as("%s", e).isEmpty();
  }

  @Property(tries = 1000)
  void moreAnswersHeard_neverMoveTheInstantBack(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 30) int answers) {
    SplittableRandom r = new SplittableRandom(seed);
    long t = (100 + r.nextLong(60_000)) * MS;
    HeardProof all = HeardProof.madeAt(0, 1);
    HeardProof some = HeardProof.madeAt(0, 1);
    long now = 0;
    for (int i = 0; i < answers; i++) {
      now += r.nextLong(1, t / 2);
      long sent = now;
      long answered = sent + r.nextLong(0, t / 8);
      HeardProof next = all.answered(1, sent, answered, t);
      assertThat(next.provenAt()).as("one more answer").isGreaterThanOrEqualTo(all.provenAt());
      all = next;
      if (r.nextBoolean()) {
        some = some.answered(1, sent, answered, t); // the same answers, some of them missed
      }
      assertThat(all.provenAt())
          .as("all the answers prove at least what some of them do")
          .isGreaterThanOrEqualTo(some.provenAt());
      now = answered;
    }
  }

  @Property(tries = 1000)
  void anAnswerOnAnotherConnection_provesNothingAboutThePreviousOne(
      @ForAll @LongRange(min = 100, max = 60_000) long timeoutMillis,
      @ForAll @LongRange(min = 0, max = 60_000) long sentMillis,
      @ForAll @LongRange(min = 0, max = 60_000) long rttMillis,
      @ForAll @LongRange(min = 0, max = 600_000) long laterMillis) {
    long t = timeoutMillis * MS;
    long sent = sentMillis * MS;
    long answered = sent + rttMillis * MS;
    HeardProof p = HeardProof.madeAt(0, 1).answered(1, sent, answered, t);
    long later = answered + laterMillis * MS;

    HeardProof elsewhere = p.answered(2, later, later, t);
    assertThat(elsewhere.provenAt()).as("answered on another connection").isEqualTo(0);
    assertThat(elsewhere.answered(2, later + t, later + t, t).provenAt())
        .as("only the other connection's own answer is proven there")
        .isEqualTo(later);
    assertThat(p.moved(2).answered(2, later + t, later + t, t).provenAt())
        .as("after a disconnection")
        .isEqualTo(0);
  }

  @Property(tries = 1000)
  void aLaterAnswer_provesAnEarlierOne_exactlyWhenSentAReportPeriodAfterIt(
      @ForAll @LongRange(min = 100, max = 60_000) long timeoutMillis,
      @ForAll @LongRange(min = 1, max = 60_000) long sentMillis,
      @ForAll @LongRange(min = 0, max = 5_000) long rttMillis,
      @ForAll @LongRange(min = 0, max = 60_000) long gapMillis) {
    long t = timeoutMillis * MS;
    long sent = sentMillis * MS;
    long answered = sent + rttMillis * MS;
    long k = answered + gapMillis * MS;
    long proven =
        HeardProof.madeAt(0, 7).answered(7, sent, answered, t).answered(7, k, k, t).provenAt();
    assertThat(proven)
        .as("gap %d ms, P = %d ms", gapMillis, SessionDeadline.reportNanos(t) / MS)
        .isEqualTo(k - answered >= SessionDeadline.reportNanos(t) ? sent : 0);
  }

  /**
   * The cost: heartbeats every T/10, answered within T/40, keep the instant no more than three
   * heartbeats behind the last answered one; so after the last answer the deadline is at least 0.6
   * T minus the margin away, and a live session is never declared lost.
   */
  @Property(tries = 1000)
  void steadyHeartbeats_proveTheThirdBeforeTheLast(
      @ForAll @LongRange(min = 100, max = 60_000) long timeoutMillis,
      @ForAll @IntRange(min = 4, max = 40) int beats,
      @ForAll long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long t = timeoutMillis * MS;
    long beat = SessionDeadline.beatNanos(t);
    HeardProof p = HeardProof.madeAt(0, 3);
    long[] sends = new long[beats];
    for (int i = 0; i < beats; i++) {
      // scheduled with a fixed delay: each period, or later
      long sent = i == 0 ? 0 : sends[i - 1] + beat + r.nextLong(0, beat / 10 + 1);
      sends[i] = sent;
      p = p.answered(3, sent, sent + r.nextLong(0, t / 40 + 1), t);
      if (i >= 3) {
        assertThat(p.provenAt()).as("beat %d", i).isGreaterThanOrEqualTo(sends[i - 3]);
      }
      assertThat(SessionDeadline.dueNanos(p.provenAt(), t) - sent)
          .as("the deadline after the last answer")
          .isGreaterThan(0);
    }
  }

  @Property(tries = 500)
  void aReconnection_provesItsAttemptsStart_andNothingOlderThanWhatWasProven(
      @ForAll @LongRange(min = 0, max = 600_000) long provenMillis,
      @ForAll @LongRange(min = 0, max = 600_000) long beganMillis) {
    HeardProof p = HeardProof.madeAt(provenMillis * MS, 1).reconnected(2, beganMillis * MS);
    assertThat(p.provenAt()).isEqualTo(Math.max(provenMillis, beganMillis) * MS);
    assertThat(p.pending()).isZero();
  }

  @Example
  void documentedPoints() {
    long t = 5_000 * MS;
    assertThat(SessionDeadline.beatNanos(t)).isEqualTo(500 * MS);
    assertThat(SessionDeadline.reportNanos(t)).isEqualTo(1_375 * MS);
    // heartbeats every 500 ms answered in 5 ms: the one sent at 1.0 s is proven by the one at 2.5 s
    HeardProof p = HeardProof.madeAt(0, 1);
    for (long s = 0; s <= 2_000; s += 500) {
      p = p.answered(1, s * MS, (s + 5) * MS, t);
    }
    assertThat(p.provenAt()).as("after the answer to 2.0 s").isEqualTo(500 * MS);
    p = p.answered(1, 2_500 * MS, 2_505 * MS, t);
    assertThat(p.provenAt()).as("after the answer to 2.5 s").isEqualTo(1_000 * MS);
    assertThat(p.pending()).isEqualTo(3);
  }

  @Example
  void anAnswerBeforeItsSend_isRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> HeardProof.madeAt(0, 1).answered(1, 10, 9, 5_000 * MS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("before it was sent");
  }

  /** The model of one follower's session traffic reaching the leader, as an event simulation. */
  static final class Ensemble {
    final SplittableRandom r;
    final long t; // negotiated session timeout
    final long tick; // T >= 2 ticks (ZooKeeper's default minSessionTimeout)
    final long loopExtra; // the leader's loop overhead per ping, at most
    final long downMax; // leader -> F delivery of any message, at most; loopExtra + downMax <= T/40
    final long upMax; // F -> leader delivery, any
    final long clientMax; // client <-> F, any
    final long leaderDelayMax; // before the leader answers a sync (outstanding proposals), any
    long cut; // F's links to the leader are cut at this instant, for good
    boolean cutRightAfterAnAnswer;
    long current; // the instant of the event running

    long lastDown;
    long lastUp;
    long lastTouch; // the leader's latest touch of the session: its creation at 0
    boolean touchedSincePing; // F's touch table holds the session
    HeardProof proof = HeardProof.madeAt(0, 1);
    final List<String> violations = new ArrayList<>();
    final List<String> log = new ArrayList<>();
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long seq;

    record Event(long at, long seq, Runnable what) implements Comparable<Event> {
      @Override
      public int compareTo(Event o) {
        return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
      }
    }

    Ensemble(SplittableRandom r) {
      this.r = r;
      t = (100 + r.nextLong(60_000)) * MS;
      // the worst case, T of exactly two ticks, half the time
      tick = r.nextBoolean() ? t / 2 : Math.max(MS, r.nextLong(t / 20, t / 2 + 1));
      long allowance = t / 40;
      loopExtra = r.nextLong(0, allowance / 2 + 1);
      downMax = r.nextBoolean() ? allowance - loopExtra : r.nextLong(0, allowance - loopExtra + 1);
      upMax = latency();
      clientMax = Math.max(1, latency());
      leaderDelayMax = latency();
      cut = r.nextInt(4) == 0 ? Long.MAX_VALUE : r.nextLong(0, 6 * t);
    }

    /** A bound on a delay: most often small against T (where a bug would show), sometimes not. */
    private long latency() {
      return switch (r.nextInt(4)) {
        case 0 -> r.nextLong(0, t / 1000 + 1);
        case 1 -> r.nextLong(0, t / 40 + 1);
        case 2 -> r.nextLong(0, t / 4 + 1);
        default -> 0;
      };
    }

    void at(long when, Runnable what) {
      events.add(new Event(when, seq++, what));
    }

    void run() {
      // the leader's pings: every half tick, plus its loop's overhead
      long ping = r.nextLong(0, tick / 2 + 1);
      while (ping < 8 * t) {
        long p = ping;
        at(p, () -> down(p, this::pingArrives));
        ping += tick / 2 + r.nextLong(0, loopExtra + 1);
      }
      // the client's heartbeats
      long beat = r.nextBoolean() ? SessionDeadline.beatNanos(t) : r.nextLong(1, t / 2);
      long s = 0;
      while (s < 8 * t) {
        long sent = s;
        at(sent, () -> heartbeat(sent));
        s += r.nextBoolean() ? beat : r.nextLong(1, t / 2);
      }
      if (cutRightAfterAnAnswer) {
        cut = Long.MAX_VALUE; // set by a sync's answer reaching F
      }
      while (!events.isEmpty()) {
        Event e = events.poll();
        current = e.at;
        e.what.run();
      }
    }

    /** A message from the leader to F sent now, delivered in order, unless the link is cut. */
    void down(long now, Runnable atF) {
      long arrives = Math.max(lastDown, now + r.nextLong(0, downMax + 1));
      lastDown = arrives;
      at(
          arrives,
          () -> {
            if (arrives <= cut) {
              atF.run();
            }
          });
    }

    /** A message from F to the leader sent at {@code now}, delivered in order, unless cut. */
    void up(long now, java.util.function.LongConsumer atLeader) {
      long arrives = Math.max(lastUp, now + r.nextLong(0, upMax + 1));
      lastUp = arrives;
      at(
          arrives,
          () -> {
            if (arrives <= cut) {
              atLeader.accept(arrives);
            }
          });
    }

    void pingArrives() {
      long now = current;
      boolean carries = touchedSincePing;
      touchedSincePing = false;
      up(
          now,
          at -> {
            if (carries) {
              lastTouch = Math.max(lastTouch, at);
              log.add("touch " + at / MS);
            }
          });
    }

    void heartbeat(long sent) {
      long atF = sent + r.nextLong(1, clientMax + 1);
      at(
          atF,
          () -> {
            touchedSincePing = true; // ZooKeeperServer.submitRequest: touch -> the touch table
            up(
                atF,
                atLeader -> {
                  long answerAt = atLeader + r.nextLong(0, leaderDelayMax + 1);
                  at(
                      answerAt,
                      () ->
                          down(
                              answerAt,
                              () -> {
                                if (cutRightAfterAnAnswer
                                    && cut == Long.MAX_VALUE
                                    && r.nextInt(3) == 0) {
                                  cut =
                                      current; // F answers its client, and loses the leader at once
                                }
                                long answered = current + r.nextLong(0, clientMax + 1);
                                at(answered, () -> answered(sent, answered));
                              }));
                });
          });
    }

    void answered(long sent, long answered) {
      proof = proof.answered(1, sent, answered, t);
      log.add("answer " + sent / MS + "->" + answered / MS + " proven " + proof.provenAt() / MS);
      if (proof.provenAt() > lastTouch) {
        violations.add(
            "at "
                + answered / MS
                + " ms: proven "
                + proof.provenAt() / MS
                + " ms, the leader's last touch "
                + lastTouch / MS
                + " ms");
      }
    }

    @Override
    public String toString() {
      return "T="
          + t / MS
          + " ms, tick "
          + tick / MS
          + " ms, cut at "
          + cut / MS
          + " ms; "
          + String.join("; ", log.subList(Math.max(0, log.size() - 12), log.size()));
    }
  }
}
