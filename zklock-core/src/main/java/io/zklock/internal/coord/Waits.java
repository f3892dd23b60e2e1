package io.zklock.internal.coord;

import io.zklock.ZkLockException;
import io.zklock.internal.zk.Blocking;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The blocking side of the coordination recipes' waits, as the JDK's blocking calls behave. */
public final class Waits {
  private Waits() {}

  /**
   * Waits for {@code f}. On interruption the wait is cancelled (its watch removed) and the
   * interruption thrown; a failure is rethrown as the {@link ZkLockException} (or other unchecked
   * exception) it is.
   */
  public static <T> T join(CompletableFuture<T> f) throws InterruptedException {
    try {
      return Blocking.get(f);
    } catch (InterruptedException e) {
      f.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      throw unchecked(e.getCause());
    }
  }

  public static RuntimeException unchecked(Throwable t) {
    if (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new ZkLockException(String.valueOf(t), t);
  }
}
