package io.zklock.bench;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The one facade every implementation is driven through (Caffeine's benchmark pattern): the same
 * scenario code runs against zklock, Curator, the naive lock, raw ZooKeeper, Redisson and etcd.
 */
interface BenchLock {

  /** Blocks until held; interruptible. */
  Held acquire() throws Exception;

  /** A held lock (or lease, or token). */
  interface Held {
    /** Returns once the server has acknowledged the release. */
    void release() throws Exception;

    /**
     * Returns at once where the implementation offers it (zklock, naive and raw: an asynchronous
     * delete); Curator has no asynchronous release, so its version is {@link #release()}.
     */
    void releaseAsync() throws Exception;

    /** The fencing token the grant carries, if the library hands one out. */
    default OptionalLong token() {
      return OptionalLong.empty();
    }

    /**
     * Completes when the library tells the holder that it may no longer hold the lock, with the
     * library's words for it; never completes where the library has no such signal.
     */
    default CompletableFuture<String> toldOfLoss() {
      return new CompletableFuture<>();
    }
  }

  /** One session (one client) of one implementation. */
  interface Client extends AutoCloseable {
    BenchLock mutex(String name) throws Exception;

    /**
     * The mutex of one entity, as a service that locks per entity takes it for one acquisition: by
     * default {@link #mutex}; a library whose users make a lock object per acquisition (Curator's
     * {@code InterProcessMutex}, Redisson's {@code getLock}, zklock's {@code mutex}) makes one.
     */
    default BenchLock perEntity(String name) throws Exception {
      return mutex(name);
    }

    BenchLock readLock(String name) throws Exception;

    BenchLock writeLock(String name) throws Exception;

    /**
     * A semaphore lease; throws {@link UnsupportedOperationException} where the implementation has
     * none (yet).
     */
    BenchLock semaphore(String name, int permits) throws Exception;

    /** The znode directory the implementation queues in for lock {@code name}. */
    String queueDir(String name);

    @Override
    void close();
  }
}
