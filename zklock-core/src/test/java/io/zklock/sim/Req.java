package io.zklock.sim;

import java.util.List;
import org.apache.zookeeper.AddWatchMode;

/** A client's request, as the simulated client sends it to its server. */
public sealed interface Req {
  /** Whether it changes the tree (goes through the leader's log). */
  default boolean write() {
    return false;
  }

  /**
   * {@code stat}: an op of a multi whose result carries the node's stat (create2, createContainer).
   */
  record Create(
      String path,
      byte[] data,
      boolean ephemeral,
      boolean sequential,
      boolean container,
      boolean stat)
      implements Req {
    Create(String path, byte[] data, boolean ephemeral, boolean sequential, boolean container) {
      this(path, data, ephemeral, sequential, container, container);
    }

    @Override
    public boolean write() {
      return true;
    }
  }

  record Delete(String path, int version) implements Req {
    @Override
    public boolean write() {
      return true;
    }
  }

  record SetData(String path, byte[] data, int version) implements Req {
    @Override
    public boolean write() {
      return true;
    }
  }

  record Check(String path, int version) implements Req {
    @Override
    public boolean write() {
      return true;
    }
  }

  /** A write multi (all or none). */
  record Multi(List<Req> ops) implements Req {
    @Override
    public boolean write() {
      return true;
    }
  }

  /** A read-only multi: each op answered on its own. */
  record MultiRead(List<Req> ops) implements Req {}

  record GetData(String path, boolean watch) implements Req {}

  record Exists(String path, boolean watch) implements Req {}

  record GetChildren(String path, boolean watch) implements Req {}

  record Sync(String path) implements Req {}

  /**
   * {@code checkWatches} ({@code removeAll} false: one watcher is removed by the client, the server
   * only checks) or {@code removeWatches} (every watcher of the type: the server removes its own).
   * {@code type} is {@code WatcherType.getIntValue()}.
   */
  record RemoveWatches(String path, int type, boolean removeAll) implements Req {}

  record AddWatch(String path, AddWatchMode mode) implements Req {}

  /** The client ends its session. */
  record CloseSession() implements Req {
    @Override
    public boolean write() {
      return true;
    }
  }

  record GetAcl(String path) implements Req {}
}
