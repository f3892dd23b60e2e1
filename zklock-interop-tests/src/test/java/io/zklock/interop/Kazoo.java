package io.zklock.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;

/**
 * One Python kazoo client in a process of its own, with its own ZooKeeper session, driven over its
 * stdin and stdout ({@code kazoo_client.py} beside this class): the other side of a shared lock
 * path in the interoperability tests. It runs on Debian's {@code /usr/bin/python3} with Debian's
 * {@code python3-kazoo} (a {@code python3} earlier on {@code PATH}, from pyenv say, does not see
 * that package); {@link #assumeAvailable()} skips a test, saying why, where either is missing.
 *
 * <p>Each recipe the client runs is a {@link Recipe} with a handle of its own. Acquisitions run in
 * threads of the Python process, so the test can queue several and release them in any order.
 * {@link #kill()} ends the process at once (SIGKILL): its session lives on until the ensemble
 * expires it, as a crashed or paused process's does; {@link #sessionId()} is what a test hands to
 * {@code EmbeddedZooKeeper#expireSession} to end it now.
 */
final class Kazoo implements AutoCloseable {
  /** Debian's interpreter, the one its python3-kazoo package is installed for. */
  static final String PYTHON = "/usr/bin/python3";

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final AtomicInteger HANDLES = new AtomicInteger();
  private static volatile String unavailable; // why not, once known; "" when available

  private final String name;
  private final Process process;
  private final Writer stdin;
  private final Deque<String> lines = new ArrayDeque<>(); // guarded by itself
  private final Deque<String> errors = new ArrayDeque<>(); // the last lines of stderr
  private final long sessionId;

  /**
   * Skips the calling test (a JUnit assumption) unless {@link #PYTHON} runs and imports kazoo, with
   * a message that says what to install.
   */
  static void assumeAvailable() {
    String why = unavailable;
    if (why == null) {
      why = probe();
      unavailable = why;
    }
    Assumptions.assumeTrue(
        why.isEmpty(),
        "skipped: the interoperability tests need Python's kazoo for "
            + PYTHON
            + " (Debian: apt-get install python3-kazoo): "
            + why);
  }

  private static String probe() {
    if (!Files.isExecutable(Path.of(PYTHON))) {
      return PYTHON + " is not installed";
    }
    try {
      Process p =
          new ProcessBuilder(
                  PYTHON,
                  "-c",
                  "import kazoo.client, kazoo.version; print(kazoo.version.__version__)")
              .redirectErrorStream(true)
              .start();
      String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        return "kazoo does not import: " + output;
      }
      return "";
    } catch (IOException e) {
      return "cannot run " + PYTHON + ": " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /**
   * Starts a kazoo client connected to {@code connectString} (its chroot included, if any), with a
   * session timeout of {@code sessionTimeout}; returns once its session is established.
   */
  static Kazoo start(String name, String connectString, Duration sessionTimeout)
      throws IOException {
    assumeAvailable();
    return new Kazoo(name, connectString, sessionTimeout);
  }

  private Kazoo(String name, String connectString, Duration sessionTimeout) throws IOException {
    this.name = name;
    String script;
    try (InputStream in = Kazoo.class.getResourceAsStream("kazoo_client.py")) {
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    process =
        new ProcessBuilder(
                PYTHON,
                "-u",
                "-c",
                script,
                connectString,
                Double.toString(sessionTimeout.toMillis() / 1000.0))
            .start();
    stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    drain(process.getInputStream(), lines, "kazoo-" + name + "-out");
    drain(process.getErrorStream(), errors, "kazoo-" + name + "-err");
    String ready = await("- ready", l -> l.startsWith("- ready "));
    sessionId = Long.parseUnsignedLong(ready.substring("- ready ".length()).trim(), 16);
  }

  private void drain(InputStream in, Deque<String> into, String thread) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  synchronized (into) {
                    into.addLast(line);
                    if (into == errors && into.size() > 50) {
                      into.removeFirst();
                    }
                    into.notifyAll();
                  }
                }
              } catch (IOException closed) {
                // the process ended
              }
            },
            thread);
    t.setDaemon(true);
    t.start();
  }

  /** The client's name in the test (not sent to ZooKeeper). */
  String name() {
    return name;
  }

  /** The client's ZooKeeper session. */
  long sessionId() {
    return sessionId;
  }

  private synchronized void send(String line) {
    try {
      stdin.write(line + "\n");
      stdin.flush();
    } catch (IOException e) {
      throw new IllegalStateException(
          "kazoo client " + name + " is gone (" + e.getMessage() + ")" + stderr(), e);
    }
  }

  /**
   * Waits for a line {@code match} accepts, consuming it (and only it); fails after {@link #WAIT},
   * saying what it waited for and what the client printed.
   */
  private String await(String what, Predicate<String> match) {
    return await(what, match, WAIT);
  }

  private String await(String what, Predicate<String> match, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    synchronized (lines) {
      while (true) {
        for (var it = lines.iterator(); it.hasNext(); ) {
          String l = it.next();
          if (match.test(l)) {
            it.remove();
            return l;
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(lines, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted waiting for " + what, e);
        }
      }
    }
  }

  private String require(String what, Predicate<String> match) {
    String l = await(what, match);
    if (l == null) {
      throw new AssertionError(
          "kazoo client "
              + name
              + ": no '"
              + what
              + "' within "
              + WAIT
              + "; printed "
              + printed()
              + stderr());
    }
    return l;
  }

  private String printed() {
    synchronized (lines) {
      return new ArrayList<>(lines).toString();
    }
  }

  private String stderr() {
    synchronized (errors) {
      return errors.isEmpty() ? "" : "; stderr: " + String.join(" | ", errors);
    }
  }

  // ---------------------------------------------------------------- recipes

  /** kazoo's {@code Lock(path, identifier)}, not yet asked to acquire. */
  Recipe lock(String path, String identifier) {
    return new Recipe("lock", path, identifier, "");
  }

  /**
   * kazoo's {@code Lock(path, identifier, extra_lock_patterns=["-lock-"])}: it also sees the names
   * of Curator's mutex and of Go's client as contenders.
   */
  Recipe lockSeeingDashLock(String path, String identifier) {
    return new Recipe("xlock", path, identifier, "");
  }

  /** kazoo's {@code ReadLock(path, identifier)}. */
  Recipe readLock(String path, String identifier) {
    return new Recipe("rlock", path, identifier, "");
  }

  /** kazoo's {@code WriteLock(path, identifier)}. */
  Recipe writeLock(String path, String identifier) {
    return new Recipe("wlock", path, identifier, "");
  }

  /** kazoo's {@code Semaphore(path, identifier, max_leases=max)}. */
  Recipe semaphore(String path, String identifier, int max) {
    return new Recipe("semaphore", path, identifier, Integer.toString(max));
  }

  /** kazoo's {@code Election(path, identifier)}: {@link Recipe#acquire()} runs for leadership. */
  Recipe election(String path, String identifier) {
    return new Recipe("election", path, identifier, "");
  }

  /** One recipe of this client, under a handle of its own. */
  final class Recipe {
    private final String handle = "h" + HANDLES.incrementAndGet();
    private final String command;
    private final String path;
    private final String identifier;
    private final String extra;

    private Recipe(String command, String path, String identifier, String extra) {
      if (path.contains(" ") || identifier.contains(" ")) {
        throw new IllegalArgumentException("no spaces: " + path + ", " + identifier);
      }
      this.command = command;
      this.path = path;
      this.identifier = identifier;
      this.extra = extra;
    }

    private String request(String... more) {
      StringBuilder sb = new StringBuilder(handle).append(' ').append(command);
      sb.append(' ').append(path).append(' ').append(identifier);
      if (!extra.isEmpty()) {
        sb.append(' ').append(extra);
      }
      for (String m : more) {
        sb.append(' ').append(m);
      }
      return sb.toString();
    }

    /** Starts a blocking acquisition (for an election: joins it); see {@link #awaitOutcome}. */
    Recipe acquire() {
      send(request());
      return this;
    }

    /** Starts an acquisition that gives up after {@code timeout} ("timeout"). */
    Recipe acquire(Duration timeout) {
      send(request(Double.toString(timeout.toMillis() / 1000.0)));
      return this;
    }

    /** A {@code Lock.acquire(blocking=False)}: "acquired" or "busy". */
    String tryAcquire() {
      if (!command.equals("lock")) {
        throw new IllegalStateException("trylock is kazoo's Lock's");
      }
      send(handle + " trylock " + path + " " + identifier);
      return awaitOutcome();
    }

    /**
     * The outcome of the acquisition: "acquired" (or "elected"), "busy", "timeout", "cancelled" or
     * "error ...". Fails the test if none comes within 30 s.
     */
    String awaitOutcome() {
      String l = require(handle + " outcome", this::isOutcome);
      return l.substring(handle.length() + 1);
    }

    /** The outcome if one comes within {@code within}, else null (still waiting). */
    String outcomeWithin(Duration within) {
      String l = await(handle + " outcome", this::isOutcome, within);
      return l == null ? null : l.substring(handle.length() + 1);
    }

    private boolean isOutcome(String l) {
      if (!l.startsWith(handle + " ")) {
        return false;
      }
      String e = l.substring(handle.length() + 1);
      return e.equals("acquired")
          || e.equals("elected")
          || e.equals("busy")
          || e.equals("timeout")
          || e.equals("cancelled")
          || e.startsWith("error ");
    }

    /** Waits until this recipe holds (or leads); fails the test with what happened otherwise. */
    Recipe awaitHeld() {
      String outcome = awaitOutcome();
      if (!outcome.equals("acquired") && !outcome.equals("elected")) {
        throw new AssertionError("kazoo " + command + " on " + path + ": " + outcome + stderr());
      }
      return this;
    }

    /** Releases (an election: returns from leading) and waits until it is done. */
    void release() {
      send(handle + " release");
      require(handle + " released", l -> l.equals(handle + " released"));
    }

    /** Cancels a waiting acquisition. */
    void cancel() {
      send(handle + " cancel");
    }

    /**
     * kazoo's {@code contenders()} (a semaphore: {@code lease_holders()}): the identifiers, in its
     * order.
     */
    List<String> contenders() {
      send(handle + " contenders");
      String l = require(handle + " contenders", x -> x.startsWith(handle + " contenders "));
      return parseJsonStrings(l.substring((handle + " contenders ").length()));
    }
  }

  /** A JSON list of strings without escapes beyond {@code \"} (kazoo's identifiers here). */
  static List<String> parseJsonStrings(String json) {
    List<String> out = new ArrayList<>();
    String s = json.trim();
    int i = s.indexOf('[') + 1;
    while (i < s.length()) {
      int q = s.indexOf('"', i);
      if (q < 0) {
        break;
      }
      StringBuilder sb = new StringBuilder();
      int j = q + 1;
      for (; j < s.length() && s.charAt(j) != '"'; j++) {
        if (s.charAt(j) == '\\' && j + 1 < s.length()) {
          j++;
        }
        sb.append(s.charAt(j));
      }
      out.add(sb.toString());
      i = j + 1;
    }
    return out;
  }

  // ---------------------------------------------------------------- the process

  /** The session's password, for a test that expires it by reconnecting with it. */
  byte[] sessionPassword() {
    send("- session");
    String l = require("- session", x -> x.startsWith("- session "));
    return HexFormat.of().parseHex(l.split(" ")[3]);
  }

  /**
   * Ends the process at once (SIGKILL), as a crash does: its session and nodes stay until the
   * ensemble expires the session.
   */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  /** Whether the process still runs. */
  boolean alive() {
    return process.isAlive();
  }

  /** Closes the session cleanly (its nodes go with it) and ends the process. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      try {
        send("- stop");
        await("- stopped", l -> l.equals("- stopped"), Duration.ofSeconds(10));
      } catch (IllegalStateException gone) {
        // ended meanwhile
      }
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    }
  }

  @Override
  public String toString() {
    return "kazoo client " + name + " (session 0x" + Long.toHexString(sessionId) + ")";
  }
}
