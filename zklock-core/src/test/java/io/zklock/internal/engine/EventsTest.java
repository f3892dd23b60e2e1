package io.zklock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LockEvent;
import io.zklock.LockEventListener;
import io.zklock.SessionState;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** How {@link Events} isolates listeners, without a server. */
class EventsTest {

  @Test
  void noListener_isOff() {
    assertThat(Events.of(List.of(), "t").on()).isFalse();
    assertThat(Events.NONE.on()).isFalse();
  }

  @Test
  void addedLater_hearsTheSessionFirst_thenWhatComes_untilRemoved() {
    Events events = Events.of(List.of(), "t");
    List<String> heard = new CopyOnWriteArrayList<>();
    LockEventListener listener =
        new LockEventListener() {
          @Override
          public void onEvent(LockEvent e) {
            heard.add(e.type() + ":" + e.sessionState());
          }

          @Override
          public boolean isNonBlocking() {
            return true;
          }
        };
    events.session(SessionState.CONNECTED, 1L); // before: nobody hears it

    events.add(listener, () -> SessionState.SUSPENDED, () -> 1L);
    assertThat(events.on()).isTrue();
    events.session(SessionState.CONNECTED, 1L);
    assertThat(events.remove(listener)).isTrue();
    events.session(SessionState.LOST, 1L);

    assertThat(heard).containsExactly("SESSION:SUSPENDED", "SESSION:CONNECTED");
    assertThat(events.on()).isFalse();
    assertThat(events.remove(listener)).as("removed already").isFalse();
  }

  @Test
  void addedToNoneOrAfterClose_hearsNothing() {
    AtomicInteger heard = new AtomicInteger();
    Events.NONE.add(e -> heard.incrementAndGet());
    assertThat(Events.NONE.on()).isFalse();

    Events events = Events.of(List.of(), "t");
    events.close();
    events.add(e -> heard.incrementAndGet(), () -> SessionState.CLOSED, () -> 0L);
    events.session(SessionState.CLOSED, 0L);
    assertThat(events.on()).isFalse();
    assertThat(heard).hasValue(0);
  }

  @Test
  void blockedListener_queueFull_dropsAndCounts_neverBlocksTheEmitter() {
    CountDownLatch unblock = new CountDownLatch(1);
    AtomicInteger heard = new AtomicInteger();
    LockEventListener blocked =
        e -> {
          heard.incrementAndGet();
          try {
            unblock.await();
          } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
          }
        };
    Events events = Events.of(List.of(blocked), "t");
    try {
      events.session(SessionState.CONNECTED, 1L);
      await().until(() -> heard.get() == 1); // its thread holds the first event
      int more = LockEventListener.QUEUE_CAPACITY + 100;
      for (int i = 0; i < more; i++) {
        events.session(SessionState.CONNECTED, 1L); // returns at once, full queue or not
      }
      assertThat(events.dropped()).as("events beyond the queue's capacity").isEqualTo(100);
    } finally {
      unblock.countDown();
      events.close();
    }
    await().until(() -> heard.get() == 1 + LockEventListener.QUEUE_CAPACITY);
  }

  @Test
  void throwingListener_isCaught_andTheNextStillHears() {
    AtomicInteger heard = new AtomicInteger();
    LockEventListener throwing =
        inPlace(
            e -> {
              throw new IllegalStateException("on purpose");
            });
    LockEventListener counting = inPlace(e -> heard.incrementAndGet());
    Events events = Events.of(List.of(throwing, counting), "t");
    events.session(SessionState.CONNECTED, 1L);
    events.session(SessionState.SUSPENDED, 1L);
    assertThat(heard.get()).isEqualTo(2);
  }

  private static LockEventListener inPlace(LockEventListener l) {
    return new LockEventListener() {
      @Override
      public void onEvent(LockEvent event) {
        l.onEvent(event);
      }

      @Override
      public boolean isNonBlocking() {
        return true;
      }
    };
  }
}
