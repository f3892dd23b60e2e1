package io.zklock.cli;

import io.zklock.LockHandle;
import io.zklock.LockLostException;
import io.zklock.ZkLockException;
import io.zklock.ZkLocks;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One worker process of {@code zklock demo} (a hidden subcommand). It loops: pick one of the demo's
 * locks, wait for it, tell the demo it was granted, "work", append to the demo's ledger with its
 * fencing token, release. It writes even when its lock was lost in the meantime, as a naive holder
 * would: the ledger's token check is what keeps the data safe. Each step is reported to the demo
 * with this process's wall-clock time in microseconds (all processes run on one machine).
 *
 * <p>A worker waits at most {@code --patience} for a lock, then tries another, as a worker with
 * other work to do would; so one stuck lock does not stall every worker.
 *
 * <p>Protocol, one line per message, worker to demo: {@code HELLO id pid}, {@code WAIT t lock},
 * {@code GIVEUP t lock} (waited {@code --patience} in vain: it picks another lock), {@code GRANT t
 * lock token} (answered {@code GO holdMillis}), {@code WRITE t lock token} (answered {@code OK} or
 * {@code REJECTED newest}), {@code RELEASE t lock token}, {@code LOST t lock token reason}.
 */
@Command(name = "demo-worker", hidden = true, description = "A worker process of zklock demo.")
final class DemoWorker implements Callable<Integer> {
  @Option(names = "--connect", required = true)
  String connect;

  @Option(names = "--namespace", defaultValue = "/zklock-demo")
  String namespace;

  @Option(names = "--session-timeout", defaultValue = "3s", converter = Durations.class)
  Duration sessionTimeout;

  @Option(names = "--coordinator", required = true, description = "port of the demo on 127.0.0.1")
  int coordinatorPort;

  @Option(names = "--patience", defaultValue = "1500ms", converter = Durations.class)
  Duration patience;

  @Option(names = "--id", required = true)
  String id;

  @Option(names = "--locks", defaultValue = "3")
  int lockCount;

  private Writer out;
  private BufferedReader in;
  private final PrintStream log = System.out;

  static long nowMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  static String lockName(int i) {
    return "ledger-" + i;
  }

  @Override
  public Integer call() throws Exception {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", coordinatorPort), 10_000);
    socket.setTcpNoDelay(true);
    out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
    in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    ZkLocks locks =
        ZkLocks.builder(connect)
            .namespace(namespace)
            .sessionTimeout(sessionTimeout)
            .connectTimeout(Duration.ofSeconds(30))
            .clientName(id)
            .build();
    locks.addSessionListener(
        (state, session) -> log("session 0x" + Long.toHexString(session) + " " + state));
    ZkLocks[] current = {locks};
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> current[0].close(), "demo-worker-shutdown"));
    send("HELLO " + id + " " + ProcessHandle.current().pid());
    log("started, session 0x" + Long.toHexString(locks.sessionId()));
    Random random = new Random();
    while (true) {
      String lock = lockName(random.nextInt(lockCount));
      send("WAIT " + nowMicros() + " " + lock);
      LockHandle h;
      try {
        java.util.Optional<LockHandle> got = current[0].mutex(lock).tryAcquire(patience);
        if (got.isEmpty()) {
          send("GIVEUP " + nowMicros() + " " + lock); // busy for too long: try another lock
          continue;
        }
        h = got.get();
      } catch (ZkLockException e) {
        log("acquire failed (" + e.getMessage() + "); reconnecting");
        current[0].close();
        current[0] = reconnect();
        continue;
      }
      long granted = nowMicros();
      long token = h.fencingToken();
      CountDownLatch lostSent = new CountDownLatch(1);
      h.lost()
          .thenAccept(
              lost -> {
                long at = nowMicros();
                log("LOST " + lock + " token " + token + ": " + lost.getMessage());
                send("LOST " + at + " " + lock + " " + token + " " + lost.reason());
                lostSent.countDown();
              });
      String go = request("GRANT " + granted + " " + lock + " " + token);
      long holdMillis = Long.parseLong(go.substring("GO ".length()));
      Thread.sleep(holdMillis); // the "work" done under the lock
      String answer = request("WRITE " + nowMicros() + " " + lock + " " + token);
      if (answer.startsWith("REJECTED")) {
        log(
            "write with token "
                + token
                + " to "
                + lock
                + " REJECTED by the ledger (newest "
                + answer.substring("REJECTED ".length())
                + "); held as far as this process knows: "
                + h.isHeld());
        // The ledger knows a newer holder exists. Wait for ZooKeeper to tell us too, before
        // releasing (a released handle no longer reports a loss).
        try {
          LockLostException lost =
              h.lost().get(sessionTimeout.toMillis() * 5, TimeUnit.MILLISECONDS);
          log("the handle confirms: " + lost.getMessage());
          lostSent.await(5, TimeUnit.SECONDS); // so that the demo hears of the loss first
        } catch (TimeoutException e) {
          log("the handle did not report a loss within " + sessionTimeout.toMillis() * 5 + " ms");
        }
      }
      send("RELEASE " + nowMicros() + " " + lock + " " + token);
      try {
        h.release();
      } catch (ZkLockException e) {
        log("release failed: " + e.getMessage());
      }
    }
  }

  private ZkLocks reconnect() throws InterruptedException {
    while (true) {
      try {
        return ZkLocks.builder(connect)
            .namespace(namespace)
            .sessionTimeout(sessionTimeout)
            .connectTimeout(Duration.ofSeconds(30))
            .clientName(id)
            .build();
      } catch (ZkLockException e) {
        log("reconnect failed: " + e.getMessage());
        Thread.sleep(200);
      }
    }
  }

  private void log(String message) {
    log.println(Instant.now() + " " + id + " " + message);
    log.flush();
  }

  private synchronized void send(String line) {
    try {
      out.write(line);
      out.write('\n');
      out.flush();
    } catch (IOException e) {
      // the demo is gone: so are we
      Runtime.getRuntime().halt(0);
    }
  }

  private String request(String line) throws IOException {
    send(line);
    String answer = in.readLine();
    if (answer == null) {
      Runtime.getRuntime().halt(0);
    }
    return answer;
  }
}
