package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import io.zklock.micrometer.ZkLockMetrics;
import io.zklock.micrometer.ZkLockObservations;
import io.zklock.shedlock.ZkLockProvider;
import io.zklock.spring.integration.ZkLockRegistry;
import io.zklock.testkit.EmbeddedZooKeeper;
import io.zklock.testkit.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

class ZkLocksAutoConfigurationTest {
  private static TestCertificates certs;
  private static EmbeddedZooKeeper zk;

  static final ApplicationContextRunner RUNNER =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ZkLocksAutoConfiguration.class,
                  ZkLocksMetricsAutoConfiguration.class,
                  ZkLockRegistryAutoConfiguration.class,
                  ZkLockProviderAutoConfiguration.class));

  private final ApplicationContextRunner runner = RUNNER;

  @BeforeAll
  static void startServer() {
    certs = TestCertificates.generate();
    zk = EmbeddedZooKeeper.standalone().tls(certs).start(); // plain and TLS client ports
  }

  @AfterAll
  static void stopServer() {
    zk.close();
    certs.close();
  }

  private ApplicationContextRunner connected() {
    return runner.withPropertyValues("zklock.connect-string=" + zk.connectString());
  }

  @Test
  void noConnectString_noZkLocksNorAdapters() {
    runner.run(
        ctx -> {
          assertThat(ctx).hasNotFailed();
          assertThat(ctx).doesNotHaveBean(ZkLocks.class);
          assertThat(ctx).doesNotHaveBean(ZkLockRegistry.class);
          assertThat(ctx).doesNotHaveBean(ZkLockProvider.class);
          assertThat(ctx).doesNotHaveBean("zklockHealthContributor");
        });
  }

  @Test
  void properties_configureAConnectedZkLocks_closedWithTheContext() {
    ZkLocks[] seen = new ZkLocks[1];
    connected()
        .withPropertyValues(
            "zklock.namespace=/boot", "zklock.client-name=boot-app", "zklock.session-timeout=6s")
        .run(
            ctx -> {
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              seen[0] = locks;
              assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
              assertThat(locks.namespace()).isEqualTo("/boot");
              assertThat(locks.clientName()).isEqualTo("boot-app");
              try (LockHandle h = locks.mutex("job").acquire()) {
                assertThat(h.path()).startsWith("/boot/job/");
              }
            });
    assertThat(seen[0].sessionState()).isEqualTo(SessionState.CLOSED);
  }

  @Test
  void observationRegistry_theLocksRequestsAreObserved_noneWithoutIt() {
    List<String> stopped = new java.util.concurrent.CopyOnWriteArrayList<>();
    ObservationRegistry registry = ObservationRegistry.create();
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler<Observation.Context>() {
              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }

              @Override
              public void onStop(Observation.Context context) {
                KeyValue outcome = context.getLowCardinalityKeyValue("outcome");
                KeyValue end = context.getLowCardinalityKeyValue("end");
                stopped.add(context.getName() + ":" + (outcome != null ? outcome : end).getValue());
              }
            });
    connected()
        .withBean(ObservationRegistry.class, () -> registry)
        .run(
            ctx -> {
              ctx.getBean(ZkLocks.class).mutex("observed").acquire().release();
              assertThat(stopped)
                  .containsExactly("zklock.lock.wait:granted", "zklock.lock.hold:released");
            });
  }

  @Test
  void adaptersOnTheClasspath_areConfigured() {
    connected()
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("zklock.metrics.lock-names=billing")
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(LockRegistry.class);
              assertThat(ctx).hasSingleBean(LockProvider.class);
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              locks.mutex("billing").acquire().release();
              ctx.getBean(ZkLockRegistry.class).executeLocked("k", () -> {});

              assertThat(
                      registry
                          .get("zklock.lock.wait")
                          .tags("lock", "billing", "outcome", "granted")
                          .timer()
                          .count())
                  .isEqualTo(1);
              assertThat(
                      registry
                          .get("zklock.lock.wait")
                          .tags("lock", "other", "outcome", "granted")
                          .timer()
                          .count())
                  .as("the registry's lock is measured too, its name guarded")
                  .isEqualTo(1);
            });
  }

  @Test
  void integrationTimeToLive_givesTheRegistrysHoldsALease_unsetByDefault() {
    connected().run(ctx -> assertThat(ctx.getBean(ZkLockRegistry.class).getTimeToLive()).isNull());
    connected()
        .withPropertyValues("zklock.integration.time-to-live=500ms")
        .run(
            ctx -> {
              ZkLockRegistry registry = ctx.getBean(ZkLockRegistry.class);
              assertThat(registry.getTimeToLive()).isEqualTo(Duration.ofMillis(500));

              Lock stuck = registry.obtain("ttl");
              stuck.lock(); // never renewed
              Optional<LockHandle> next =
                  ctx.getBean(ZkLocks.class).mutex("ttl").tryAcquire(Duration.ofSeconds(20));
              assertThat(next).as("granted once the time to live ran out").isPresent();
              next.get().release();
              assertThatThrownBy(stuck::unlock)
                  .isInstanceOf(ConcurrentModificationException.class) // as Spring's registries
                  .cause()
                  .isInstanceOf(LockLostException.class)
                  .hasMessageContaining("lease");
            });
  }

  @Test
  void integrationTimeToLive_invalid_failsStartupNamingIt() {
    connected()
        .withPropertyValues("zklock.integration.time-to-live=0s")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PT0S"));
  }

  @Test
  void shedlockOnTheMeasuredZkLocks_lockAtMostForIsALease_measuredAsLeaseExpired() {
    connected()
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            ctx -> {
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              LockProvider provider = ctx.getBean(LockProvider.class);
              LockConfiguration config =
                  new LockConfiguration(
                      Instant.now(), "stuck", Duration.ofMillis(300), Duration.ZERO);

              SimpleLock stuck = provider.lock(config).orElseThrow(); // never unlocked
              await()
                  .atMost(Duration.ofSeconds(20))
                  .alias("a hold lost by reason lease_expired is timed")
                  .until(
                      () -> {
                        Timer t =
                            registry
                                .find("zklock.lock.hold")
                                .tags("end", "lost", "reason", "lease_expired")
                                .timer();
                        return t != null && t.count() == 1;
                      });
              // the expired grant's node is deleted in the background: free very soon after
              SimpleLock[] next = new SimpleLock[1];
              await()
                  .atMost(Duration.ofSeconds(20))
                  .until(() -> (next[0] = provider.lock(config).orElse(null)) != null);
              next[0].unlock();
              stuck.unlock(); // late, harmless
            });
  }

  @Test
  void adaptersNotOnTheClasspath_areNotConfigured() {
    connected()
        .withClassLoader(
            new FilteredClassLoader(
                ZkLockRegistry.class,
                ZkLockProvider.class,
                ZkLockMetrics.class,
                ZkLockObservations.class))
        .run(
            ctx -> {
              assertThat(ctx).hasSingleBean(ZkLocks.class);
              assertThat(ctx).doesNotHaveBean(ZkLockRegistry.class);
              assertThat(ctx).doesNotHaveBean(ZkLockProvider.class);
              assertThat(ctx).doesNotHaveBean(MeterBinder.class);
              assertThat(ctx).doesNotHaveBean(ZkLocksInstrumentation.class);
            });
  }

  @Test
  void applicationsOwnBeans_win() {
    DefaultLockRegistry own = new DefaultLockRegistry();
    connected()
        .withBean(DefaultLockRegistry.class, () -> own)
        .withPropertyValues("zklock.metrics.enabled=false")
        .run(
            ctx -> {
              assertThat(ctx).doesNotHaveBean(ZkLockRegistry.class);
              assertThat(ctx.getBean(LockRegistry.class)).isSameAs(own);
              assertThat(ctx).doesNotHaveBean(ZkLockMetrics.class);
            });
  }

  @Test
  void digestFromAFile_authenticatesAndOwnsTheLockNodes(@TempDir Path dir) throws Exception {
    Path secret = dir.resolve("digest");
    Files.writeString(secret, "alice:s3cret\n", StandardCharsets.UTF_8);
    connected()
        .withPropertyValues("zklock.auth.digest-file=" + secret, "zklock.namespace=/digest-file")
        .run(ctx -> assertNodeOwnedBy(ctx.getBean(ZkLocks.class), "alice"));
  }

  @Test
  void digestFromAProperty_authenticatesAndOwnsTheLockNodes() throws Exception {
    connected()
        .withPropertyValues("zklock.auth.digest=bob:pw", "zklock.namespace=/digest-prop")
        .run(ctx -> assertNodeOwnedBy(ctx.getBean(ZkLocks.class), "bob"));
  }

  @Test
  void digestAndDigestFile_bothSet_failsStartupSayingSo(@TempDir Path dir) throws Exception {
    Path secret = dir.resolve("digest");
    Files.writeString(secret, "alice:s3cret", StandardCharsets.UTF_8);
    connected()
        .withPropertyValues("zklock.auth.digest=bob:pw", "zklock.auth.digest-file=" + secret)
        .run(ctx -> assertThat(ctx).getFailure().rootCause().hasMessageContaining("not both"));
  }

  @Test
  void malformedDigest_failsStartupWithoutShowingIt() {
    connected()
        .withPropertyValues("zklock.auth.digest=nocolon")
        .run(
            ctx ->
                assertThat(ctx)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("user:password")
                    .hasMessageNotContaining("nocolon"));
  }

  @Test
  void tls_connectsToTheSecurePort() {
    runner
        .withPropertyValues(
            "zklock.connect-string=" + zk.secureConnectString(),
            "zklock.namespace=/tls",
            "zklock.tls.trust-store=" + certs.trustStore(),
            "zklock.tls.trust-store-password=" + certs.password(),
            "zklock.tls.key-store=" + certs.clientKeyStore(),
            "zklock.tls.key-store-password=" + certs.password(),
            // a TLS handshake on a build machine at load 30 took more than the default 10 s
            "zklock.connect-timeout=60s")
        .run(
            ctx -> {
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
              locks.mutex("secure").acquire().release();
            });
  }

  private static void assertNodeOwnedBy(ZkLocks locks, String user) throws Exception {
    try (LockHandle h = locks.mutex("secret").acquire()) {
      ZooKeeper raw = new ZooKeeper(zk.connectString(), 10_000, e -> {});
      try {
        List<ACL> acl = raw.getACL(h.path(), new Stat());
        assertThat(acl)
            .as("ACL of %s", h.path())
            .anySatisfy(
                a -> {
                  assertThat(a.getId().getScheme()).isEqualTo("digest");
                  assertThat(a.getId().getId()).startsWith(user + ":");
                });
      } finally {
        raw.close();
      }
    }
  }
}
