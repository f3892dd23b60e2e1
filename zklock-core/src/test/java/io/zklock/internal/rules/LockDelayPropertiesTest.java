package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The lock-delay's decision ({@link LockDelay}) against a model of a ZooKeeper lock directory:
 * random histories of creates, clean releases (one multi: record + delete), deletions that are not
 * releases (expiry, forced release, a withdrawal deeper in the queue), withdrawals that keep a
 * delay's record, and time passing; a newcomer reads the directory, more of the history runs, then
 * it creates its node. Whenever it stands first, it may hold at once only if the last deletion
 * before it was a clean release (or nothing was ever deleted), and it waits the full delay after a
 * deletion that was not.
 */
class LockDelayPropertiesTest {
  private static final long DELAY = 1_000;

  /** What ended the directory's last node, before our create. */
  enum End {
    NONE,
    CLEAN,
    UNCLEAN,
    RECORDED
  }

  /** A directory as ZooKeeper keeps it, as far as the rule reads it. */
  static final class Dir {
    final boolean deleteBumpsCversion;
    long zxid = 100;
    long pzxid = 100;
    long mzxid = 100;
    int cversion;
    long mtime;
    long now = 1_000_000;
    byte[] data = new byte[0];
    final Deque<Integer> children = new ArrayDeque<>(); // sequences, in order
    End lastEnd = End.NONE;
    long recordedAt = Long.MIN_VALUE;

    Dir(boolean deleteBumpsCversion) {
      this.deleteBumpsCversion = deleteBumpsCversion;
    }

    int create() {
      int seq = cversion++;
      pzxid = ++zxid;
      children.addLast(seq);
      return seq;
    }

    private void deleted() {
      if (deleteBumpsCversion) {
        cversion++;
      }
    }

    void apply(int op) {
      switch (op) {
        case 0 -> create();
        case 1 -> { // the head's clean release: multi(setData(dir), delete(head))
          if (!children.isEmpty()) {
            int seq = children.removeFirst();
            deleted();
            pzxid = mzxid = ++zxid;
            mtime = now;
            data = LockDelay.released("m-x-" + seq);
            lastEnd = End.CLEAN;
          }
        }
        case 2 -> { // any node deleted without a record: expiry, forced, or a deeper withdrawal
          if (!children.isEmpty()) {
            children.removeLast();
            deleted();
            pzxid = ++zxid;
            lastEnd = End.UNCLEAN;
          }
        }
        case 3 -> { // the head, waiting out a delay, withdraws and keeps the record
          if (!children.isEmpty()) {
            children.removeFirst();
            deleted();
            pzxid = mzxid = ++zxid;
            mtime = now;
            data = LockDelay.failed(-1);
            lastEnd = End.RECORDED;
            recordedAt = now;
          }
        }
        default -> now += 300; // time passes
      }
    }
  }

  @Provide
  Arbitrary<List<Integer>> ops() {
    return Arbitraries.integers().between(0, 4).list().ofMaxSize(30);
  }

  @Property(tries = 2000)
  void newcomerFirst_holdsAtOnceOnlyAfterACleanEnd_andWaitsTheFullDelayAfterAnUncleanOne(
      @ForAll("ops") List<Integer> before,
      @ForAll("ops") List<Integer> between,
      @ForAll @IntRange(min = 0, max = 3) int behind,
      @ForAll boolean deleteBumpsCversion) {
    Dir d = new Dir(deleteBumpsCversion);
    before.forEach(d::apply);
    // the newcomer's read, pipelined ahead of its create
    long pzxid = d.pzxid;
    long mzxid = d.mzxid;
    int numChildren = d.children.size();
    int cversion = d.cversion;
    byte[] data = d.data;
    long mtime = d.mtime;
    between.forEach(d::apply); // other clients' requests, between the read and our create
    boolean first = d.children.isEmpty();
    d.create();
    long ctime = d.now;
    for (int i = 0; i < behind; i++) {
      d.create(); // newcomers queueing behind us before our listing is read
    }
    int postCversion = d.cversion; // our first listing's, after our create

    long wait =
        LockDelay.byStat(
            true, pzxid, mzxid, numChildren, cversion, data, mtime, postCversion, ctime, DELAY);

    if (!first) {
      return; // it waits behind a node: the watch decides, not this read
    }
    assertThat(wait).isBetween(0L, DELAY);
    if (d.lastEnd == End.UNCLEAN) {
      assertThat(wait).as("after an unclean end: the full delay").isEqualTo(DELAY);
    }
    if (d.lastEnd == End.RECORDED) {
      assertThat(ctime + wait)
          .as("after a kept record: until its time plus the delay")
          .isGreaterThanOrEqualTo(d.recordedAt + DELAY);
    }
    if (wait == 0) {
      assertThat(d.lastEnd).isIn(End.NONE, End.CLEAN, End.RECORDED);
    }
  }

  @Property
  void uncontended_afterCleanReleases_neverWaits(
      @ForAll @IntRange(min = 0, max = 50) int cycles, @ForAll boolean deleteBumpsCversion) {
    Dir d = new Dir(deleteBumpsCversion);
    for (int i = 0; i < cycles; i++) {
      d.create();
      d.apply(1);
    }
    long pzxid = d.pzxid;
    long mzxid = d.mzxid;
    int n = d.children.size();
    int cversion = d.cversion;
    d.create();
    long wait =
        LockDelay.byStat(
            true, pzxid, mzxid, n, cversion, d.data, d.mtime, d.cversion, d.now, DELAY);
    assertThat(wait).isZero();
  }

  @Property
  void afterCreateRead_cleanOnlyIfTheLastChildChangeWroteTheRecord(
      @ForAll("ops") List<Integer> history, @ForAll boolean deleteBumpsCversion) {
    Dir d = new Dir(deleteBumpsCversion);
    d.create();
    history.forEach(d::apply);
    long wait =
        LockDelay.byStat(
            true,
            d.pzxid,
            d.mzxid,
            LockDelay.AFTER_CREATE,
            LockDelay.AFTER_CREATE,
            d.data,
            d.mtime,
            LockDelay.AFTER_CREATE,
            0L,
            DELAY);
    if (d.pzxid != d.mzxid) {
      assertThat(wait).isEqualTo(DELAY);
    }
    if (d.lastEnd == End.RECORDED && d.pzxid == d.mzxid) {
      assertThat(wait).as("no server time known after the create: the full delay").isEqualTo(DELAY);
    }
    if (d.lastEnd == End.CLEAN && d.pzxid == d.mzxid) {
      assertThat(wait)
          .as("the last child change was a clean release's own write: no delay")
          .isZero();
    }
  }

  @Example
  void afterCreateRead_ofACleanRelease_holdsAtOnce() {
    byte[] record = LockDelay.released("m-0000000004");
    int after = LockDelay.AFTER_CREATE;
    assertThat(LockDelay.byStat(true, 9, 9, after, after, record, 0, after, 0, DELAY)).isZero();
    assertThat(LockDelay.byStat(true, 9, 8, after, after, record, 0, after, 0, DELAY))
        .as("a child change after the record's write")
        .isEqualTo(DELAY);
  }

  @Property
  void zeroDelay_neverWaits(
      @ForAll long pzxid, @ForAll long mzxid, @ForAll int n, @ForAll int cv, @ForAll int post) {
    assertThat(LockDelay.byStat(true, pzxid, mzxid, n, cv, null, 0, post, 0, 0)).isZero();
  }

  @Property
  void records_readBack(
      @ForAll("names") String name, @ForAll @LongRange(min = 0) long at, @ForAll long mtime) {
    assertThat(LockDelay.releasedNode(LockDelay.released(name))).isEqualTo(name);
    assertThat(LockDelay.failedAt(LockDelay.released(name), mtime)).isEqualTo(Long.MIN_VALUE);
    assertThat(LockDelay.failedAt(LockDelay.failed(at), mtime)).isEqualTo(at);
    assertThat(LockDelay.failedAt(LockDelay.failed(-1), mtime)).isEqualTo(mtime);
    assertThat(LockDelay.releasedNode(LockDelay.failed(at))).isNull();
  }

  @Provide
  Arbitrary<String> names() {
    return Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz0123456789-").ofMinLength(1);
  }

  @Property
  void cleanByWatch_onlyAChangeSinceTheReadOrARecordNamingThePredecessor(
      @ForAll("names") String pred, @ForAll("names") String read, @ForAll boolean changed) {
    assertThat(LockDelay.cleanByWatch(pred, read, changed)).isEqualTo(changed || pred.equals(read));
    assertThat(LockDelay.cleanByWatch(pred, null, false)).isFalse();
  }

  @Example
  void missingDirectory_cleanOnlyIfOurCreateWasItsOnlyChildChange() {
    assertThat(LockDelay.byStat(false, 0, 0, 0, 0, null, 0, 1, 0, DELAY)).isZero();
    assertThat(LockDelay.byStat(false, 0, 0, 0, 0, null, 0, 3, 0, DELAY)).isEqualTo(DELAY);
  }

  @Example
  void garbageRecord_isNotClean() {
    byte[] junk = "not json".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(LockDelay.releasedNode(junk)).isNull();
    assertThat(LockDelay.byStat(true, 5, 5, 0, 3, junk, 0, 4, 0, DELAY)).isEqualTo(DELAY);
  }
}
