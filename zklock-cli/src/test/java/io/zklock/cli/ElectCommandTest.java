package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code zklock elect} as processes: a leader, a hot standby, an observer. */
class ElectCommandTest extends CliServerTestSupport {
  private ZklockProcess elect(String ns, String... rest) throws Exception {
    String[] args = args("elect", ns, rest);
    return ZklockProcess.start(dir, Map.of(), args);
  }

  /** Marks {@code $DIR/<tag>.leads} with its epoch, writes {@code <tag>.term} on SIGTERM. */
  private String[] leader(String tag) {
    String d = "'" + dir + "'";
    return new String[] {
      "sh",
      "-c",
      "trap 'touch "
          + d
          + "/"
          + tag
          + ".term; exit 143' TERM; echo $ZKLOCK_EPOCH > "
          + d
          + "/"
          + tag
          + ".leads; while :; do sleep 0.02; done"
    };
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private boolean leads(String tag) throws Exception {
    Path f = dir.resolve(tag + ".leads");
    return Files.exists(f) && Files.size(f) > 0;
  }

  private long epoch(String tag) throws Exception {
    return Long.parseLong(Files.readString(dir.resolve(tag + ".leads")).strip());
  }

  @Test
  void sigterm_whileWaitingToLead_exits143_andLeavesTheElection() throws Exception {
    String ns = namespace();
    try (ZklockProcess a =
        elect(ns, concat(new String[] {"--id", "node-a", "sched", "--"}, leader("a")))) {
      // b starts once a leads: started together, either could win, and b must be the one waiting
      await().atMost(Duration.ofSeconds(30)).until(() -> leads("a"));
      try (ZklockProcess b =
          elect(ns, concat(new String[] {"--id", "node-b", "sched", "--"}, leader("b")))) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> observer.getChildren(ns + "/sched", false).size() == 2);

        b.signal("TERM");

        Cli.Result r = b.await(30);
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.TERMINATED);
        assertThat(r.err()).contains("cancelled while waiting to lead 'sched'");
        assertThat(observer.getChildren(ns + "/sched", false)).as("only the leader").hasSize(1);
      }
      a.signal("INT");
      assertThat(a.await(30).exitCode()).as("the leader, stopped by SIGINT").isEqualTo(130);
    }
  }

  @Test
  void id_isWhatLsShows_inTextAndJson() throws Exception {
    String ns = namespace();
    try (ZklockProcess z =
            elect(ns, concat(new String[] {"--id", "node-z", "sched", "--"}, leader("z")));
        ZklockProcess y =
            elect(
                ns,
                concat(
                    new String[] {"--id", "node-y", "--client-name", "box-1", "sched", "--"},
                    leader("y")))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> children(ns + "/sched").size() == 2);

      Cli.Result text = Cli.run(args("ls", ns));
      Cli.Result json = Cli.run(args("ls", ns, "--json"));

      assertThat(text.exitCode()).as(text.toString()).isZero();
      // the id is the client name unless --client-name says otherwise; then it has its column
      assertThat(text.out().lines().findFirst().orElseThrow())
          .containsPattern("CLIENT +PARTICIPANT +HOST");
      assertThat(text.out()).containsPattern("node-z +node-z").containsPattern("box-1 +node-y");
      assertThat(json.out())
          .contains("\"client\":\"node-z\",\"participant\":\"node-z\"")
          .contains("\"client\":\"box-1\",\"participant\":\"node-y\"");
      z.signal("TERM");
      y.signal("TERM");
      z.await(30);
      y.await(30);
    }
  }

  @Test
  void hotStandby_takesOverWhenTheLeaderStops_andTheObserverSeesIt() throws Exception {
    String ns = namespace();
    try (ZklockProcess a =
        elect(ns, concat(new String[] {"--id", "node-a", "sched", "--"}, leader("a")))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> leads("a"));
      // the observer starts once a leads: its first line must name a
      try (ZklockProcess watch = elect(ns, "--observe", "sched");
          ZklockProcess b =
              elect(ns, concat(new String[] {"--id", "node-b", "sched", "--"}, leader("b")))) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> observer.getChildren(ns + "/sched", false).size() == 2);
        assertThat(leads("b")).as("the standby waits").isFalse();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> watch.stdout().contains("sched: leader node-a"));

        a.signal("TERM");

        assertThat(a.await(30).exitCode()).isNotZero();
        assertThat(dir.resolve("a.term")).as("a's command got SIGTERM").exists();
        await().atMost(Duration.ofSeconds(30)).until(() -> leads("b"));
        assertThat(epoch("b")).as("the new epoch is greater").isGreaterThan(epoch("a"));
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> watch.stdout().contains("sched: leader node-b"));
        List<String> lines = watch.stdout().lines().toList();
        assertThat(lines.get(0)).contains("sched: leader node-a");
        b.signal("TERM");
        b.await(30);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> watch.stdout().contains("sched: no leader"));
      }
    }
  }

  @Test
  void revoked_sessionExpired_commandGetsSigterm_exit4() throws Exception {
    String ns = namespace();
    try (ZklockProcess a = elect(ns, concat(new String[] {"sched", "--"}, leader("a")))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> leads("a"));
      String node = observer.getChildren(ns + "/sched", false).get(0);

      zk.expireSession(observer.exists(ns + "/sched/" + node, false).getEphemeralOwner());

      Cli.Result r = a.await(30);
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.LOCK_LOST);
      assertThat(r.err()).contains("lost the leadership of 'sched'");
      assertThat(dir.resolve("a.term")).exists();
    }
  }

  @Test
  void commandExits_resigns_withItsStatus() throws Exception {
    String ns = namespace();
    try (ZklockProcess a = elect(ns, "sched", "--", "sh", "-c", "exit 9")) {
      Cli.Result r = a.await(30);

      assertThat(r.exitCode()).as(r.toString()).isEqualTo(9);
      await().atMost(Duration.ofSeconds(10)).until(() -> children(ns + "/sched").isEmpty());
    }
  }

  @Test
  void ctrlC_whileStandingBy_saysCancelled() throws Exception {
    String ns = namespace();
    try (ZklockProcess a = elect(ns, concat(new String[] {"sched", "--"}, leader("a")))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> leads("a"));
      try (ZklockProcess b = elect(ns, concat(new String[] {"sched", "--"}, leader("b")))) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> observer.getChildren(ns + "/sched", false).size() == 2);

        b.signal("INT");

        Cli.Result r = b.await(30);
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.INTERRUPTED);
        assertThat(r.err())
            .contains("cancelled while waiting to lead 'sched'", "nothing is left behind");
        assertThat(observer.getChildren(ns + "/sched", false)).hasSize(1);
        a.signal("TERM");
        a.await(30);
      }
    }
  }
}
