package io.zklock.internal.zk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

/**
 * The calls of a client whose session is over for zklock (declared lost, expired): nothing new
 * reaches the server; each call is answered SESSIONEXPIRED, later, on the answers' executor, in the
 * order made.
 */
class EndedOpsTest {
  private final List<Runnable> later = new ArrayList<>();
  private final Executor answers = later::add;
  private final List<String> sent = new ArrayList<>();
  private final List<String> heard = new ArrayList<>();

  /** Calls that record what reaches them, and answer OK at once. */
  private final ZkOps raw =
      new ZkOps() {
        @Override
        public void create(
            String path,
            byte[] data,
            List<org.apache.zookeeper.data.ACL> acl,
            CreateMode mode,
            org.apache.zookeeper.AsyncCallback.Create2Callback cb) {
          sent.add("create " + path);
          cb.processResult(0, path, null, path, null);
        }

        @Override
        public void getChildren(
            String path,
            org.apache.zookeeper.Watcher w,
            org.apache.zookeeper.AsyncCallback.Children2Callback cb) {
          sent.add("getChildren " + path);
          cb.processResult(0, path, null, List.of(), null);
        }

        @Override
        public void getData(
            String p,
            org.apache.zookeeper.Watcher w,
            org.apache.zookeeper.AsyncCallback.DataCallback cb) {}

        @Override
        public void exists(
            String p,
            org.apache.zookeeper.Watcher w,
            org.apache.zookeeper.AsyncCallback.StatCallback cb) {}

        @Override
        public void delete(String p, int v, org.apache.zookeeper.AsyncCallback.VoidCallback cb) {}

        @Override
        public void getACL(String p, org.apache.zookeeper.AsyncCallback.ACLCallback cb) {}

        @Override
        public void setData(
            String p, byte[] d, int v, org.apache.zookeeper.AsyncCallback.StatCallback cb) {}

        @Override
        public void removeWatches(
            String p,
            org.apache.zookeeper.Watcher w,
            org.apache.zookeeper.Watcher.WatcherType t,
            org.apache.zookeeper.AsyncCallback.VoidCallback cb) {}

        @Override
        public void removeAllWatches(
            String p,
            org.apache.zookeeper.Watcher.WatcherType t,
            org.apache.zookeeper.AsyncCallback.VoidCallback cb) {}

        @Override
        public void sync(String p, org.apache.zookeeper.AsyncCallback.VoidCallback cb) {}
      };

  private void createAndList(ZkOps ops, String path) {
    ops.create(
        path,
        new byte[0],
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.EPHEMERAL,
        (rc, p, c, name, stat) -> heard.add("create " + p + " " + Code.get(rc)));
    ops.getChildren(
        "/", null, (rc, p, c, children, stat) -> heard.add("getChildren " + Code.get(rc)));
  }

  @Test
  void beforeTheEnd_createsGoThrough_afterIt_theyAreRefusedLater_andNeverSent() {
    EndedOps.End end = new EndedOps.End();
    ZkOps ops = new EndedOps(raw, end, answers);
    createAndList(ops, "/a");
    assertThat(sent).containsExactly("create /a", "getChildren /");

    end.end();
    createAndList(ops, "/b");

    assertThat(sent)
        .as("no create reaches the client; a read still does")
        .containsExactly("create /a", "getChildren /", "getChildren /");
    assertThat(heard)
        .as("the refusal is not answered on the caller's thread")
        .containsExactly("create /a OK", "getChildren OK", "getChildren OK");
    later.forEach(Runnable::run);
    assertThat(heard)
        .containsExactly(
            "create /a OK", "getChildren OK", "getChildren OK", "create /b SESSIONEXPIRED");
  }
}
