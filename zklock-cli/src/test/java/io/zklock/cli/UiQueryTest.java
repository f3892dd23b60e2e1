package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.LockInfo;
import io.zklock.LockNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The page's orders and filters ({@link UiModel#order}, {@link UiModel#filter(UiModel.Query,
 * long)}) on rows made by hand: what matters first, longest wait, longest hold (as long as it
 * surely is), most waiters, name; has waiters, held longer than, kind, client.
 */
class UiQueryTest {
  private static final long NOW = 1_000_000_000L;
  private int ids;

  private static LockNode node(String lock, int i, String client, long since) {
    return node(lock, i, client, since, i == 0 ? LockNode.State.HOLDING : LockNode.State.QUEUED);
  }

  private static LockNode node(
      String lock, int i, String client, long since, LockNode.State state) {
    return new LockNode(
        "m-a" + i + "-000000000" + i,
        "/ns/" + lock + "/m-a" + i + "-000000000" + i,
        LockNode.Kind.MUTEX,
        client,
        "host",
        1,
        100 + i,
        Instant.ofEpochMilli(since),
        10 + i,
        "",
        false,
        Map.of(),
        state);
  }

  /** A lock held since {@code grantedTo} at the latest (0: free), with waiters since each time. */
  private UiModel.Row row(String name, LockInfo.Kind kind, long grantedTo, long... waitSince) {
    List<LockNode> holders = new ArrayList<>();
    Map<String, UiModel.Granted> grants = new java.util.HashMap<>();
    if (grantedTo > 0) {
      LockNode h = node(name, 0, "holder-" + name, grantedTo - 5_000);
      holders.add(h);
      grants.put(h.path(), new UiModel.Granted(grantedTo - 5_000, grantedTo, "range", 0));
    }
    List<LockNode> waiters = new ArrayList<>();
    for (int i = 0; i < waitSince.length; i++) {
      waiters.add(node(name, i + 1, "waiter-" + i, waitSince[i]));
    }
    LockInfo info = new LockInfo(name, "/ns/" + name, kind, 0, holders, waiters);
    Set<String> clients = new HashSet<>();
    holders.forEach(n -> clients.add(n.clientName()));
    waiters.forEach(n -> clients.add(n.clientName()));
    long wait =
        waiters.stream().mapToLong(n -> n.since().toEpochMilli()).min().orElse(Long.MAX_VALUE);
    return new UiModel.Row(
        ++ids,
        info,
        1,
        UiModel.kindOf(info),
        grants,
        wait,
        grantedTo > 0 ? grantedTo : Long.MAX_VALUE,
        clients,
        0);
  }

  private List<UiModel.Row> rows() {
    return List.of(
        row("a-free", LockInfo.Kind.MUTEX, 0),
        row("b-held-long", LockInfo.Kind.MUTEX, NOW - 600_000),
        row("c-held-short", LockInfo.Kind.MUTEX, NOW - 2_000),
        row("d-one-old-waiter", LockInfo.Kind.MUTEX, NOW - 60_000, NOW - 300_000),
        row("e-three-waiters", LockInfo.Kind.MUTEX, NOW - 30_000, NOW - 20_000, NOW - 10_000, NOW),
        row("f-semaphore", LockInfo.Kind.SEMAPHORE, NOW - 120_000));
  }

  private static List<String> sorted(List<UiModel.Row> rows, String sort) {
    return rows.stream().sorted(UiModel.order(sort)).map(r -> r.info().name()).toList();
  }

  private static List<String> filtered(List<UiModel.Row> rows, UiModel.Query q) {
    return rows.stream().filter(UiModel.filter(q, NOW)).map(r -> r.info().name()).sorted().toList();
  }

  @Test
  void orders_whatMattersFirst_wait_hold_waiters_name() {
    List<UiModel.Row> rows = rows();

    assertThat(sorted(rows, ""))
        .as("waited-for locks by longest wait, then held ones by longest hold, then free ones")
        .containsExactly(
            "d-one-old-waiter",
            "e-three-waiters",
            "b-held-long",
            "f-semaphore",
            "c-held-short",
            "a-free");
    assertThat(sorted(rows, "wait").subList(0, 2))
        .containsExactly("d-one-old-waiter", "e-three-waiters");
    assertThat(sorted(rows, "hold"))
        .containsExactly(
            "b-held-long",
            "f-semaphore",
            "d-one-old-waiter",
            "e-three-waiters",
            "c-held-short",
            "a-free");
    assertThat(sorted(rows, "waiters").subList(0, 2))
        .containsExactly("e-three-waiters", "d-one-old-waiter");
    assertThat(sorted(rows, "name")).isSorted();
  }

  @Test
  void filters_hasWaiters_heldLongerThan_kind_client_search() {
    List<UiModel.Row> rows = rows();

    assertThat(filtered(rows, new UiModel.Query(null, null, null, null, true, 0)))
        .containsExactly("d-one-old-waiter", "e-three-waiters");
    assertThat(filtered(rows, new UiModel.Query(null, null, null, null, false, 100_000)))
        .as("held for sure longer than 100 s")
        .containsExactly("b-held-long", "f-semaphore");
    assertThat(filtered(rows, new UiModel.Query(null, "semaphore", null, null, false, 0)))
        .containsExactly("f-semaphore");
    assertThat(filtered(rows, new UiModel.Query(null, null, null, "waiter-2", false, 0)))
        .containsExactly("e-three-waiters");
    assertThat(filtered(rows, new UiModel.Query("HELD", null, null, null, false, 0)))
        .containsExactly("b-held-long", "c-held-short");
    assertThat(filtered(rows, new UiModel.Query(null, null, "held", null, true, 50_000)))
        .as("filters combine")
        .containsExactly("d-one-old-waiter");
  }
}
