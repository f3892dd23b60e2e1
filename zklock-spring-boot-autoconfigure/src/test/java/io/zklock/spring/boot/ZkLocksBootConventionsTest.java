package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockNode;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import io.zklock.micrometer.ZkLockMetrics;
import io.zklock.shedlock.ZkLockProvider;
import io.zklock.spring.integration.ZkLockRegistry;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.Order;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * The conventions of Spring Boot's own auto-configurations (issue 31), on either Boot line:
 * configuration metadata, single candidates, metrics only with a registry and after Boot's, the
 * lifecycle of the ZkLocks beans, connecting in the background, and builder customizers.
 */
class ZkLocksBootConventionsTest {
  private static EmbeddedZooKeeper zk;

  private final ApplicationContextRunner runner = ZkLocksAutoConfigurationTest.RUNNER;

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  private ApplicationContextRunner connected() {
    return runner.withPropertyValues("zklock.connect-string=" + zk.connectString());
  }

  private static ZkLocks client(String name) {
    return ZkLocks.builder(zk.connectString()).clientName(name).build();
  }

  // --- configuration metadata ---

  @Test
  void configurationMetadata_describesEveryZklockKey() throws Exception {
    // the file this module's jar packs (where the configuration processor wrote it), beside a
    // starter's own on the same class path
    String metadata =
        metadataOf(ZkLockProperties.class, "META-INF/spring-configuration-metadata.json");
    String properties = metadata.substring(metadata.indexOf("\"properties\""));
    List<String> keys = new ArrayList<>();
    List<String> undescribed = new ArrayList<>();
    // each property is a flat JSON object: {"name": ..., "type": ..., "description": ..., ...}
    Matcher entry =
        Pattern.compile("\\{[^{}]*\"name\"\\s*:\\s*\"([^\"]+)\"[^{}]*\\}").matcher(properties);
    while (entry.find()) {
      String name = entry.group(1);
      if (!name.startsWith("zklock.")) {
        continue;
      }
      keys.add(name);
      Matcher d = Pattern.compile("\"description\"\\s*:\\s*\"([^\"]*)\"").matcher(entry.group());
      if (!d.find() || d.group(1).isBlank()) {
        undescribed.add(name);
      }
    }
    System.out.printf(
        "configuration metadata: %d zklock.* keys, %d undescribed%n",
        keys.size(), undescribed.size());
    assertThat(keys)
        .contains(
            "zklock.connect-string",
            "zklock.connect-in-background",
            "zklock.integration.cache-capacity",
            "zklock.tls.trust-store-password",
            "zklock.tls.key-store-password");
    assertThat(undescribed).as("keys without a description").isEmpty();
  }

  /** The resource {@code name} of the jar (or class directory) that holds {@code type}. */
  static String metadataOf(Class<?> type, String name) throws Exception {
    String location = type.getProtectionDomain().getCodeSource().getLocation().toString();
    for (URL url : Collections.list(type.getClassLoader().getResources(name))) {
      if (url.toString().contains(location.replaceFirst("^file:", ""))) {
        try (InputStream in = url.openStream()) {
          return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      }
    }
    throw new AssertionError(name + " is not packaged with " + type.getName() + " in " + location);
  }

  // --- two ZkLocks beans: single candidates ---

  @Test
  void twoZkLocksBeans_contextStarts_adapterBeansStepAside() {
    runner
        .withBean("ordersLocks", ZkLocks.class, () -> client("orders"))
        .withBean("billingLocks", ZkLocks.class, () -> client("billing"))
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).getBeans(ZkLocks.class).hasSize(2);
              assertThat(ctx).doesNotHaveBean(ZkLockRegistry.class);
              assertThat(ctx).doesNotHaveBean(ZkLockProvider.class);
              assertThat(ctx).doesNotHaveBean(MeterBinder.class);
            });
  }

  @Test
  void twoZkLocksBeans_onePrimary_adaptersUseThePrimary() {
    runner
        .withBean("ordersLocks", ZkLocks.class, () -> client("orders"), d -> d.setPrimary(true))
        .withBean("billingLocks", ZkLocks.class, () -> client("billing"))
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              ZkLockRegistry registry = ctx.getBean(ZkLockRegistry.class);
              registry.executeLocked("k", () -> {});
              assertThat(ctx).hasSingleBean(ZkLockProvider.class);
              ZkLocks orders = ctx.getBean("ordersLocks", ZkLocks.class);
              try (LockHandle h = orders.mutex("probe").acquire()) {
                assertThat(h.isHeld()).isTrue();
                Optional<LockNode> holder =
                    orders.inspect("probe").flatMap(i -> i.holders().stream().findFirst());
                assertThat(holder.map(LockNode::clientName)).contains("orders");
              }
              assertThat(registry.obtain("k").distributedLock().name()).isEqualTo("k");
            });
  }

  // --- metrics: only with a MeterRegistry, after Boot's own ---

  @Test
  void metrics_withoutAMeterRegistry_notConfigured() {
    connected()
        .run(
            ctx -> {
              assertThat(ctx).doesNotHaveBean(MeterBinder.class);
              assertThat(ctx).doesNotHaveBean(ZkLockMetrics.class);
            });
  }

  @Test
  void metrics_withAMeterRegistryBean_measured() {
    connected()
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            ctx -> {
              ctx.getBean(ZkLocks.class).mutex("m").acquire().release();
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              assertThat(registry.get("zklock.lock.wait").tag("outcome", "granted").timer().count())
                  .isEqualTo(1);
              assertThat(
                      registry
                          .get("zklock.session.state")
                          .tags("state", "connected", "client", "zkLocks")
                          .gauge()
                          .value())
                  .as("the session gauge, named by the bean")
                  .isEqualTo(1.0);
            });
  }

  @Test
  void metrics_withBootsOwnMetricsAutoConfiguration_orderedAfterIt_measured() {
    // the registry comes from Boot's metrics auto-configuration, listed here after ours: the
    // ordering (afterName) must still put ours after it
    List<Class<?>> boots = bootMetricsAutoConfigurations();
    assertThat(boots).as("Boot's metrics auto-configurations are on the test classpath").hasSize(3);
    connected()
        .withConfiguration(AutoConfigurations.of(boots.toArray(Class<?>[]::new)))
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).hasSingleBean(MeterRegistry.class);
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              locks.mutex("measured").acquire().release();
              MeterRegistry registry = ctx.getBean(MeterRegistry.class);
              assertThat(registry.get("zklock.lock.wait").tag("outcome", "granted").timer().count())
                  .isEqualTo(1);
            });
  }

  // Spring Boot 4's, else Spring Boot 3's, as named in ZkLocksMetricsAutoConfiguration
  private static List<Class<?>> bootMetricsAutoConfigurations() {
    List<Class<?>> found = new ArrayList<>();
    for (String prefix :
        List.of(
            "org.springframework.boot.micrometer.metrics.autoconfigure.",
            "org.springframework.boot.actuate.autoconfigure.metrics.")) {
      for (String name :
          List.of(
              "MetricsAutoConfiguration",
              "CompositeMeterRegistryAutoConfiguration",
              "export.simple.SimpleMetricsExportAutoConfiguration")) {
        try {
          found.add(Class.forName(prefix + name));
        } catch (ClassNotFoundException e) {
          // the other line
        }
      }
    }
    return found;
  }

  // --- lifecycle ---

  @Test
  void lifecyclePhase_belowSchedulersLeaderInitiatorsEndpointsAndTheWebServersGracefulShutdown() {
    assertThat(ZkLocksLifecycle.PHASE)
        .isLessThan(ExecutorConfigurationSupport.DEFAULT_PHASE) // task schedulers, executors
        .isLessThan(Integer.MAX_VALUE - 1000) // LockRegistryLeaderInitiator
        .isLessThan(SmartLifecycle.DEFAULT_PHASE - 1024) // web server graceful shutdown
        .isLessThan(0); // plain Lifecycle beans, Spring Integration endpoints
  }

  @Test
  void
      gracefulShutdown_aJobStoppingEarlierStillHoldsAndUnlocks_thenTheLocksAreClosed_beforeDestruction()
          throws Exception {
    List<String> events = new CopyOnWriteArrayList<>();
    AtomicReference<String> nodePath = new AtomicReference<>();
    connected()
        .withBean(
            "scheduledJob",
            SmartLifecycle.class,
            () -> new JobLifecycle(events, nodePath),
            d -> d.setDependsOn("zkLocks"))
        .withBean(
            "lateBean",
            DisposableBean.class,
            () -> new LateBean(events),
            d -> d.setDependsOn("zkLocks"))
        .run(
            ctx -> {
              JobLifecycle job = (JobLifecycle) ctx.getBean("scheduledJob");
              job.locks = ctx.getBean(ZkLocks.class);
              ((LateBean) ctx.getBean("lateBean")).locks = job.locks;
              job.held = job.locks.mutex("nightly").acquire();
              nodePath.set(job.held.path());
              // a second hold, never released by the application: the close releases it
              job.forgotten = job.locks.mutex("forgotten").acquire();
            });
    assertThat(events)
        .containsExactly("job stops: session CONNECTED, unlocked", "destroyed: session CLOSED");
    try (ZkLocks other = client("other")) {
      // released, not left to the session timeout: free at once
      assertThat(other.mutex("forgotten").tryAcquire())
          .isPresent()
          .get()
          .satisfies(LockHandle::release);
      assertThat(other.inspect("nightly").map(i -> i.holders().isEmpty()).orElse(true)).isTrue();
    }
  }

  @Test
  void contextStopThenStart_stopReleasesTheLocksAtOnce_startOpensANewSessionForTheSameBeans() {
    List<String> starts = new CopyOnWriteArrayList<>();
    connected()
        .withBean(
            "scheduler",
            SmartLifecycle.class,
            () -> new StartRecorder(starts),
            d -> d.setDependsOn("zkLocks"))
        .run(
            ctx -> {
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              ((StartRecorder) ctx.getBean("scheduler")).locks = locks;
              DistributedLock job = locks.mutex("restarted-job");
              LockHandle held = job.acquire();
              long first = locks.sessionId();

              ctx.stop();

              assertThat(held.lost()).isCompleted();
              assertThat(locks.sessionState()).isEqualTo(SessionState.CLOSED);
              try (ZkLocks other = client("other")) {
                assertThat(other.mutex("restarted-job").tryAcquire())
                    .as("released at the stop, not after the session timeout")
                    .hasValueSatisfying(LockHandle::release);
              }

              ctx.start();

              assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
              assertThat(locks.sessionId()).isNotEqualTo(first);
              try (LockHandle again = job.acquire()) {
                assertThat(again.isHeld()).as("the same lock object, on the new session").isTrue();
              }
              assertThat(starts)
                  .as("a scheduler's start (a later phase) finds the locks connected")
                  .containsExactly("start: session CONNECTED");
            });
  }

  /** A lifecycle of a scheduler's phase that records the session it finds when it starts again. */
  static final class StartRecorder implements SmartLifecycle {
    final List<String> starts;
    volatile ZkLocks locks;
    volatile boolean running;

    StartRecorder(List<String> starts) {
      this.starts = starts;
    }

    @Override
    public void start() {
      if (locks != null) {
        starts.add("start: session " + locks.sessionState());
      }
      running = true;
    }

    @Override
    public void stop() {
      running = false;
    }

    @Override
    public boolean isRunning() {
      return running;
    }

    @Override
    public int getPhase() {
      return ExecutorConfigurationSupport.DEFAULT_PHASE;
    }
  }

  @Test
  void gracefulShutdown_closesEveryZkLocksBean_theApplicationsToo() {
    ZkLocks[] beans = new ZkLocks[2];
    runner
        .withBean("a", ZkLocks.class, () -> beans[0] = client("a"))
        .withBean("b", ZkLocks.class, () -> beans[1] = client("b"))
        .run(ctx -> assertThat(ctx.getBean(ZkLocksLifecycle.class).isRunning()).isTrue());
    assertThat(beans[0].sessionState()).isEqualTo(SessionState.CLOSED);
    assertThat(beans[1].sessionState()).isEqualTo(SessionState.CLOSED);
  }

  /** Stands for a scheduler's job that holds a lock until its lifecycle stops. */
  static final class JobLifecycle implements SmartLifecycle {
    final List<String> events;
    final AtomicReference<String> path;
    volatile ZkLocks locks;
    volatile LockHandle held;
    volatile LockHandle forgotten;
    volatile boolean running;

    JobLifecycle(List<String> events, AtomicReference<String> path) {
      this.events = events;
      this.path = path;
    }

    @Override
    public void start() {
      running = true;
    }

    @Override
    public void stop() {
      running = false;
      SessionState state = locks.sessionState();
      held.release(); // must still work: the locks are closed in a later phase
      events.add("job stops: session " + state + ", " + (held.isHeld() ? "held" : "unlocked"));
    }

    @Override
    public boolean isRunning() {
      return running;
    }

    @Override
    public int getPhase() {
      return ExecutorConfigurationSupport.DEFAULT_PHASE; // a ThreadPoolTaskScheduler's
    }
  }

  /** A bean destroyed after the lifecycle stopped. */
  static final class LateBean implements DisposableBean {
    final List<String> events;
    volatile ZkLocks locks;

    LateBean(List<String> events) {
      this.events = events;
    }

    @Override
    public void destroy() {
      events.add("destroyed: session " + locks.sessionState());
    }
  }

  // --- connect in the background ---

  @Test
  void connectInBackground_unreachableEnsemble_contextStartsSuspended_requestsFailInTime()
      throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // nothing listens there once closed
    }
    ApplicationContextRunner unreachable =
        runner.withPropertyValues(
            "zklock.connect-string=127.0.0.1:" + port, "zklock.connect-timeout=1s");
    unreachable.run(
        ctx ->
            assertThat(ctx).as("by default startup fails on an unreachable ensemble").hasFailed());
    unreachable
        .withPropertyValues("zklock.connect-in-background=true")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              assertThat(locks.sessionState()).isEqualTo(SessionState.SUSPENDED);
              assertThat(locks.sessionId()).isZero();
              assertThat(locks.mutex("x").tryAcquire(Duration.ofMillis(200))).isEmpty();
            });
  }

  @Test
  void connectInBackground_reachableEnsemble_connects() {
    connected()
        .withPropertyValues("zklock.connect-in-background=true")
        .run(
            ctx -> {
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              locks.mutex("bg").acquire().release(); // waits for the first connection
              assertThat(locks.sessionState()).isEqualTo(SessionState.CONNECTED);
            });
  }

  // --- builder customizers ---

  @Test
  @SuppressWarnings("deprecation")
  void builderCustomizers_shapeTheBuilderInOrder_afterTheProperties_beforeDecorators() {
    List<String> calls = new CopyOnWriteArrayList<>();
    connected()
        .withPropertyValues("zklock.client-name=from-properties")
        .withBean("second", ZkLocksBuilderCustomizer.class, () -> new Second(calls))
        .withBean("first", ZkLocksBuilderCustomizer.class, () -> new First(calls))
        .withBean(
            ZkLocksDecorator.class,
            () ->
                locks -> {
                  calls.add("decorator");
                  return locks;
                })
        .run(
            ctx -> {
              assertThat(calls).containsExactly("first", "second", "decorator");
              ZkLocks locks = ctx.getBean(ZkLocks.class);
              assertThat(locks.clientName())
                  .as("a customizer overrides a property")
                  .isEqualTo("customized");
              try (LockHandle h = locks.mutex("owner-data").acquire()) {
                assertThat(h.isHeld()).isTrue();
                assertThat(
                        locks
                            .inspect("owner-data")
                            .flatMap(i -> i.holders().stream().findFirst())
                            .map(LockNode::ownerData))
                    .contains("job=42");
              }
            });
  }

  @Order(1)
  static final class First implements ZkLocksBuilderCustomizer {
    private final List<String> calls;

    First(List<String> calls) {
      this.calls = calls;
    }

    @Override
    public void customize(ZkLocks.Builder builder) {
      calls.add("first");
      builder.ownerData("job=42");
    }
  }

  @Order(2)
  static final class Second implements ZkLocksBuilderCustomizer {
    private final List<String> calls;

    Second(List<String> calls) {
      this.calls = calls;
    }

    @Override
    public void customize(ZkLocks.Builder builder) {
      calls.add("second");
      builder.clientName("customized");
    }
  }
}
