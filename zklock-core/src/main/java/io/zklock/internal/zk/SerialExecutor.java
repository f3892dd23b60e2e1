package io.zklock.internal.zk;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

/** Runs tasks one at a time, in submission order, on an underlying executor. */
public final class SerialExecutor implements Executor {
  private final Executor delegate;
  private final Queue<Runnable> tasks = new ArrayDeque<>();
  private boolean running;

  public SerialExecutor(Executor delegate) {
    this.delegate = delegate;
  }

  @Override
  public void execute(Runnable task) {
    synchronized (this) {
      tasks.add(task);
      if (running) {
        return;
      }
      running = true;
    }
    delegate.execute(this::drain);
  }

  private void drain() {
    while (true) {
      Runnable next;
      synchronized (this) {
        next = tasks.poll();
        if (next == null) {
          running = false;
          return;
        }
      }
      try {
        next.run();
      } catch (RuntimeException e) {
        org.slf4j.LoggerFactory.getLogger(SerialExecutor.class).warn("task failed", e);
      }
    }
  }
}
