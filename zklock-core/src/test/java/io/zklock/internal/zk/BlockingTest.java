package io.zklock.internal.zk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BlockingTest {
  @AfterEach
  void uninstall() {
    Blocking.uninstall();
    Thread.interrupted();
  }

  @Test
  void withoutAWaiter_getAndJoinAreTheJdks() throws Exception {
    assertThat(Blocking.get(CompletableFuture.completedFuture("a"))).isEqualTo("a");
    assertThat(Blocking.join(CompletableFuture.completedFuture("b"))).isEqualTo("b");
    CompletableFuture<String> failed =
        CompletableFuture.failedFuture(new IllegalStateException("x"));
    assertThatThrownBy(() -> Blocking.get(failed)).isInstanceOf(ExecutionException.class);
  }

  @Test
  void anInstalledWaiter_decidesWhenAWaitGoesOn_andIsNotAskedForADoneFuture() throws Exception {
    List<Boolean> asked = new ArrayList<>();
    Blocking.install(
        (f, interruptible, timeout) -> {
          asked.add(interruptible);
          ((CompletableFuture<String>) f).complete("done by the waiter");
        });
    assertThat(Blocking.get(new CompletableFuture<String>())).isEqualTo("done by the waiter");
    assertThat(Blocking.join(new CompletableFuture<String>())).isEqualTo("done by the waiter");
    assertThat(Blocking.get(CompletableFuture.completedFuture("x"))).isEqualTo("x");
    assertThat(asked).as("get waits interruptibly, join does not").containsExactly(true, false);
  }

  @Test
  void join_throughAWaiter_waitsOnPastAnInterrupt_andKeepsIt() {
    CompletableFuture<String> f = new CompletableFuture<>();
    int[] calls = {0};
    Blocking.install(
        (g, interruptible, timeout) -> {
          if (calls[0]++ == 0) {
            throw new InterruptedException("once");
          }
          f.complete("later");
        });
    assertThat(Blocking.join(f)).isEqualTo("later");
    assertThat(Thread.interrupted()).as("join keeps the interrupt, as the JDK's does").isTrue();
  }

  @Test
  void timedGet_throughAWaiter_timesOutWhenTheWaiterReturnsWithTheFutureNotDone() {
    long[] asked = {0};
    Blocking.install((g, interruptible, timeout) -> asked[0] = timeout);
    assertThatThrownBy(
            () -> Blocking.get(new CompletableFuture<String>(), 5, TimeUnit.MILLISECONDS))
        .isInstanceOf(TimeoutException.class);
    assertThat(asked[0]).isEqualTo(TimeUnit.MILLISECONDS.toNanos(5));
  }

  @Test
  void get_throughAWaiter_throwsItsInterrupt() {
    Blocking.install(
        (g, interruptible, timeout) -> {
          throw new InterruptedException("interrupted while waiting");
        });
    assertThatThrownBy(() -> Blocking.get(new CompletableFuture<String>()))
        .isInstanceOf(InterruptedException.class);
  }
}
