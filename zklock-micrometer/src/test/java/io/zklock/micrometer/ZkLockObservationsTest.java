package io.zklock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.zklock.DistributedCountDownLatch;
import io.zklock.DistributedLock;
import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ZkLockObservations} through Micrometer Tracing's OpenTelemetry bridge, into an in-memory
 * span exporter: a wait span under the caller's span, a hold span under the wait.
 */
class ZkLockObservationsTest {
  private static EmbeddedZooKeeper zk;

  private InMemorySpanExporter spans;
  private SdkTracerProvider provider;
  private ObservationRegistry registry;
  private ZkLocks locks;

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  @BeforeEach
  void tracing() {
    spans = InMemorySpanExporter.create();
    provider =
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
    OtelCurrentTraceContext context = new OtelCurrentTraceContext();
    OtelTracer tracer =
        new OtelTracer(
            provider.get("zklock-test"),
            context,
            event -> {},
            new OtelBaggageManager(context, List.of(), List.of()));
    registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
    locks =
        ZkLocks.builder(zk.connectString()).eventListener(ZkLockObservations.of(registry)).build();
  }

  @AfterEach
  void close() {
    locks.close();
    provider.close();
  }

  @Test
  void acquireUnderASpan_waitSpanIsItsChild_holdSpanTheWaitsChild_withNameKindOutcomeToken()
      throws Exception {
    Observation caller = Observation.start("caller", registry);
    LockHandle h;
    try (Observation.Scope scope = caller.openScope()) {
      h = locks.mutex("orders/42").acquire();
    }
    h.release();
    caller.stop();

    await().until(() -> spans.getFinishedSpanItems().size() == 3);
    SpanData parent = span("caller");
    SpanData wait = span("zklock wait mutex");
    SpanData hold = span("zklock hold mutex");
    assertThat(wait.getTraceId()).isEqualTo(parent.getTraceId()).isEqualTo(hold.getTraceId());
    assertThat(wait.getParentSpanId()).as("the wait's parent").isEqualTo(parent.getSpanId());
    assertThat(hold.getParentSpanId()).as("the hold's parent").isEqualTo(wait.getSpanId());
    assertThat(attr(wait, "lock.name")).isEqualTo("orders/42");
    assertThat(attr(wait, "kind")).isEqualTo("mutex");
    assertThat(attr(wait, "outcome")).isEqualTo("granted");
    assertThat(attr(wait, "lock")).as("guarded: no name allowed").isEqualTo("other");
    assertThat(attr(wait, "token")).isEqualTo(Long.toString(h.fencingToken()));
    assertThat(attr(hold, "end")).isEqualTo("released");
    assertThat(attr(hold, "reason")).isEqualTo("none");
    assertThat(attr(hold, "token")).isEqualTo(Long.toString(h.fencingToken()));
  }

  @Test
  void busyTry_isAWaitSpanWithOutcomeBusy_andNoHold() throws Exception {
    try (ZkLocks other = ZkLocks.builder(zk.connectString()).build()) {
      LockHandle held = other.mutex("busy").acquire();
      assertThat(locks.mutex("busy").tryAcquire()).isEmpty();
      held.release();
    }

    await().until(() -> spans.getFinishedSpanItems().size() == 1);
    SpanData wait = span("zklock wait mutex");
    assertThat(attr(wait, "outcome")).isEqualTo("busy");
    assertThat(wait.getParentSpanContext().isValid()).as("no caller span: a root").isFalse();
  }

  @Test
  void coordinationWaits_areWaitSpansWithTheirOutcome_andNoHold() throws Exception {
    DistributedCountDownLatch latch = locks.countDownLatch("obs-latch", 1);
    latch.countDown();
    assertThat(latch.await(Duration.ofSeconds(10))).isTrue();
    DistributedLock lock = locks.mutex("obs-cond");
    LockHandle gone = lock.acquire();
    try (ZkLocks other = ZkLocks.builder(zk.connectString()).build()) {
      other.forceRelease("obs-cond");
    }
    gone.lost().get(30, TimeUnit.SECONDS);
    assertThatThrownBy(() -> lock.newCondition().await(gone)).isInstanceOf(LockLostException.class);

    await().until(() -> spans.getFinishedSpanItems().size() == 4);
    assertThat(attr(span("zklock wait latch"), "outcome")).isEqualTo("passed");
    assertThat(attr(span("zklock wait condition"), "outcome")).isEqualTo("lost");
    assertThat(attr(span("zklock hold mutex"), "end")).isEqualTo("lost");
    assertThat(attr(span("zklock hold mutex"), "reason")).isEqualTo("node_deleted");
    assertThat(spans.getFinishedSpanItems())
        .as("no hold span of a coordination wait")
        .extracting(SpanData::getName)
        .containsExactlyInAnyOrder(
            "zklock wait latch", "zklock wait mutex", "zklock hold mutex", "zklock wait condition");
  }

  private SpanData span(String name) {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no span " + name + " in " + spans.getFinishedSpanItems()));
  }

  private static String attr(SpanData s, String key) {
    return s.getAttributes().get(AttributeKey.stringKey(key));
  }
}
