package io.zklock.bench;

/**
 * The one facade every implementation is driven through (Caffeine's benchmark pattern): the same
 * scenario code runs against zklock, Curator, the naive lock and raw ZooKeeper.
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
  }

  /** One session (one ZooKeeper client) of one implementation. */
  interface Client extends AutoCloseable {
    BenchLock mutex(String name) throws Exception;

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
