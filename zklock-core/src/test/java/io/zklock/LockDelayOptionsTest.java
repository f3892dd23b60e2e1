package io.zklock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A lock-delay is never dropped silently, server-free: {@link ZkLocks}'s methods with options are
 * abstract (no implementation inherits a default that would hand out a lock without its delay), the
 * API has no default method left that throws, and {@link LockOptions} refuses the combinations that
 * cannot honour a delay when they are built. The refusals of zklock's own implementation are in
 * {@code LockDelayTest}.
 */
class LockDelayOptionsTest {
  private static final Duration DELAY = Duration.ofSeconds(2);

  @Test
  void interfaceDefaults_refuseADelay_insteadOfALockWithoutOne() throws Exception {
    for (java.lang.reflect.Method m :
        List.of(
            ZkLocks.class.getMethod("mutex", String.class, LockOptions.class),
            ZkLocks.class.getMethod("readWriteLock", String.class, LockOptions.class),
            ZkLocks.class.getMethod("semaphore", String.class, int.class, LockOptions.class),
            ZkLocks.class.getMethod(
                "leaderElection", String.class, String.class, LockOptions.class))) {
      assertThat(m.isDefault())
          .as("%s has no default that could drop a delay: every implementation decides", m)
          .isFalse();
    }
  }

  /**
   * The API's default methods are conveniences over abstract ones, never a refusal: every other
   * method is abstract, so that no implementation inherits one that throws.
   */
  @Test
  void interfaceDefaults_withoutADelay_areThePlainLocks() throws Exception {
    List<String> defaults = new ArrayList<>();
    java.nio.file.Path classes = java.nio.file.Path.of("target", "classes", "io", "zklock");
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(classes)) {
      for (java.nio.file.Path f : (Iterable<java.nio.file.Path>) files::iterator) {
        String file = f.getFileName().toString();
        if (!file.endsWith(".class")) {
          continue;
        }
        Class<?> c = Class.forName("io.zklock." + file.substring(0, file.length() - 6));
        if (c.isInterface() && java.lang.reflect.Modifier.isPublic(c.getModifiers())) {
          for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
            if (m.isDefault()) {
              defaults.add(c.getSimpleName() + "." + m.getName());
            }
          }
        }
      }
    }
    assertThat(defaults)
        .as("the API's default methods: each a convenience over an abstract method")
        .containsExactlyInAnyOrder(
            "DistributedLock.newCondition", "LockEventListener.isNonBlocking");
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
    LockOptions plain =
        LockOptions.defaults()
            .lockDelay(DELAY)
            .maxLocalHandoffs(4)
            .maxLocalHold(Duration.ofMillis(5));
    assertThat(plain.isCohort()).isFalse();
    assertThat(plain.lockDelay()).isEqualTo(DELAY);
  }
}
