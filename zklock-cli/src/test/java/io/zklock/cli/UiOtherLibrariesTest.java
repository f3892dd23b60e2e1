package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zklock.LockHandle;
import io.zklock.LockOptions;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

/**
 * {@code zklock ui} names another library's holder as such: a Python kazoo client's lock node
 * ({@code <uuid hex>__lock__<sequence>}, its identifier as data) and a Go client's ({@code _c_<32
 * hex>-lock-<sequence>}, no data), each written as that library writes it, with the kind, the
 * client and the identifier (and {@code zklock ls} too); a zklock Curator-compatible mutex waits
 * behind the Go holder, and is granted when it goes.
 */
class UiOtherLibrariesTest extends UiTestSupport {
  private static final String GUID = "0a1b2c3d4e5f60718293a4b5c6d7e8f9";

  private String create(String path, String data, CreateMode mode) throws Exception {
    String made =
        observer.create(
            path, data.getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, mode);
    return made.substring(made.lastIndexOf('/') + 1);
  }

  @Test
  void aKazooHolderAndAGoHolder_areShownWithTheirClientKindAndIdentifier() throws Exception {
    String ns = namespace();
    create(ns, "", CreateMode.PERSISTENT);
    create(ns + "/polyglot", "", CreateMode.PERSISTENT);
    create(ns + "/gojob", "", CreateMode.PERSISTENT);
    String kazoo =
        create(
            ns + "/polyglot/3e2becd2a0f54b7e9d1c6b2a8f7e4d10__lock__",
            "settlement-job",
            CreateMode.EPHEMERAL_SEQUENTIAL);
    String go = create(ns + "/gojob/_c_" + GUID + "-lock-", "", CreateMode.EPHEMERAL_SEQUENTIAL);
    CompletableFuture<LockHandle> waiter =
        client(ns, "java-worker").mutex("gojob", LockOptions.curatorCompatible()).acquireAsync();
    await().atMost(WAIT).until(() -> observer.getChildren(ns + "/gojob", false).size() == 2);
    Ui ui = startUi(ns);

    String polyglot = lockOf(ui, "polyglot");
    assertThat(polyglot)
        .contains("\"node\":\"" + kazoo + "\"")
        .contains("\"kind\":\"kazoo-lock\"", "\"client\":\"(kazoo)\"")
        .contains("\"data\":\"settlement-job\"");
    String gojob = lockOf(ui, "gojob");
    assertThat(gojob)
        .contains("\"node\":\"" + go + "\"")
        .contains("\"kind\":\"go-lock\"", "\"client\":\"(go-zookeeper)\"")
        .contains("\"data\":\"" + GUID + "\"")
        .contains("\"client\":\"java-worker\"");
    assertThat(gojob.indexOf("(go-zookeeper)"))
        .as("Go's holder, then zklock's waiter: " + gojob)
        .isLessThan(gojob.indexOf("java-worker"));
    assertThat(waiter).isNotDone();
    Cli.Result ls = Cli.run(args("ls", ns));
    assertThat(ls.out())
        .as(ls.toString())
        .containsPattern("gojob +\\d+ +holds +go-lock +\\(go-zookeeper\\)")
        .contains(GUID)
        .containsPattern("polyglot +\\d+ +holds +kazoo-lock +\\(kazoo\\)");

    observer.delete(ns + "/gojob/" + go, -1);
    try (LockHandle held =
        waiter.get(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
      assertThat(held.fencingToken()).isPositive();
    }
  }
}
