package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A lock-delay is never dropped silently, server-free: {@link ZkLocks}'s default methods (what an
 * implementation of the interface other than zklock's own inherits) refuse a delay rather than hand
 * out a lock without one, and {@link LockOptions} refuses the combinations that cannot honour one
 * when they are built. The refusals of zklock's own implementation are in {@code LockDelayTest}.
 */
class LockDelayOptionsTest {
  private static final Duration DELAY = Duration.ofSeconds(2);
  private static final LockOptions DELAYED = LockOptions.defaults().lockDelay(DELAY);

  /** The abstract methods this stand-in was asked for: none may be reached with a delay. */
  private final List<String> called = new ArrayList<>();

  /** A {@link ZkLocks} that has only the interface's defaults: abstract methods return null. */
  private final ZkLocks defaults =
      (ZkLocks)
          Proxy.newProxyInstance(
              ZkLocks.class.getClassLoader(),
              new Class<?>[] {ZkLocks.class},
              (InvocationHandler)
                  (proxy, method, args) -> {
                    if (method.isDefault()) {
                      return InvocationHandler.invokeDefault(proxy, method, args);
                    }
                    called.add(method.getName());
                    return null;
                  });

  @Test
  void interfaceDefaults_refuseADelay_insteadOfALockWithoutOne() {
    assertThatThrownBy(() -> defaults.mutex("job", DELAYED))
        .as("the default mutex(name, options) is mutex(name), which has no delay")
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("job")
        .hasMessageContaining("lockDelay=PT2S");
    assertThatThrownBy(() -> defaults.readWriteLock("rw", DELAYED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("read-write lock 'rw'")
        .hasMessageContaining("plain mutex only");
    assertThatThrownBy(() -> defaults.semaphore("pool", 3, DELAYED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("semaphore 'pool'")
        .hasMessageContaining("plain mutex only");
    assertThatThrownBy(() -> defaults.leaderElection("leader", "me", DELAYED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("election 'leader'")
        .hasMessageContaining("plain mutex only");
    assertThat(called).as("no lock was made without its delay").isEmpty();
  }

  @Test
  void interfaceDefaults_withoutADelay_areThePlainLocks() {
    defaults.mutex("job", LockOptions.defaults());
    defaults.readWriteLock("rw", LockOptions.defaults());
    defaults.semaphore("pool", 3, LockOptions.defaults());
    defaults.leaderElection("leader", "me", LockOptions.defaults());
    assertThat(called).containsExactly("mutex", "readWriteLock", "semaphore", "leaderElection");
  }

  @Test
  void cohortAndCuratorOptions_refuseADelay_whenBuilt() {
    assertThatThrownBy(() -> LockOptions.cohort().lockDelay(DELAY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain mutex only")
        .hasMessageContaining("cohort");
    assertThatThrownBy(() -> LockOptions.cohort().maxLocalHandoffs(4).lockDelay(DELAY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cohort");
    assertThatThrownBy(() -> LockOptions.curatorCompatible().lockDelay(DELAY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("curator-compatible");
    // the bounds of a cohort set on a plain lock with a delay do not make it a cohort
    LockOptions plain = DELAYED.maxLocalHandoffs(4).maxLocalHold(Duration.ofMillis(5));
    assertThat(plain.isCohort()).isFalse();
    assertThat(plain.lockDelay()).isEqualTo(DELAY);
  }
}
