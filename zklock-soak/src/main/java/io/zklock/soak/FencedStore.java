package io.zklock.soak;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The resource the locks protect: a tiny TCP service on 127.0.0.1, owned by the orchestrator, that
 * accepts a write only when its fencing token is not older than what it has already accepted.
 *
 * <p>Protocol, one line each way: {@code WRITE <key> <side> <token> <handle> <phase>} answered by
 * {@code OK} or {@code REJECT}; phase {@code abandon} is no write, only the end of a critical
 * section whose holder heard of its loss. Sides and their rule (per key):
 *
 * <ul>
 *   <li>{@code M} (mutex) and {@code W} (writer of a read-write lock): accepted iff {@code token
 *       >=} the highest token accepted for the key from any side. Equal tokens are the same holder
 *       writing again.
 *   <li>{@code R} (reader): accepted iff {@code token >=} the highest token accepted from a
 *       <em>writer</em>. Readers share the lock, so concurrent readers may write in any order; a
 *       reader is stale only once a later writer has written.
 *   <li>{@code S} (semaphore lease): recorded, never rejected. Leases of a semaphore are
 *       independent, so one monotonic token cannot fence them; the checker counts leases instead.
 * </ul>
 *
 * Decisions are made one at a time (synchronized) and logged in that order with {@code
 * STORE_ACCEPT}/{@code STORE_REJECT}, so the log is the store's total order.
 */
public final class FencedStore implements AutoCloseable {
  private final ServerSocket listener;
  private final EventLog log;
  private final Map<String, Long> highestAll = new HashMap<>();
  private final Map<String, Long> highestWriter = new HashMap<>();
  private final Map<String, String> openByHandle = new ConcurrentHashMap<>();
  private final Map<String, Long> openSince = new ConcurrentHashMap<>();
  private final Map<String, Section> openSections = new ConcurrentHashMap<>();
  private final java.util.List<Section> begins = new java.util.ArrayList<>();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private volatile boolean closed;

  private FencedStore(Path logFile) {
    this.log = new EventLog(logFile, true);
    try {
      listener = new ServerSocket();
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind the fenced store", e);
    }
    acceptor = new Thread(this::acceptLoop, "fenced-store-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Starts a store on a free loopback port, logging its decisions to {@code logFile}. */
  public static FencedStore start(Path logFile) {
    return new FencedStore(logFile);
  }

  /** The port clients connect to. */
  public int port() {
    return listener.getLocalPort();
  }

  /** The decision log so far. */
  public java.util.List<Event> events() {
    return log.events();
  }

  /**
   * Client processes with a write of phase {@code begin} or {@code begin-long} not yet followed by
   * {@code end} or {@code abandon}: a holder in the middle of its critical section (the
   * orchestrator likes to fault those). With {@code longHoldOnly}, only 12 s holds that began less
   * than two seconds ago: a fault of at most 7.5 s on them ends while they still hold.
   */
  public Set<String> processesInCriticalSection(boolean longHoldOnly) {
    Set<String> out = new java.util.HashSet<>();
    openByHandle.forEach(
        (handle, phase) -> {
          Long since = openSince.get(handle);
          boolean fresh = since != null && System.nanoTime() - since < 2_000_000_000L;
          if (!longHoldOnly || phase.equals("begin-long") && fresh) {
            out.add(handle.substring(0, Math.max(0, handle.indexOf('/'))));
          }
        });
    return out;
  }

  /**
   * A critical section as the store saw it: the handle, its lock (key) and store side, its token,
   * and when its {@code begin} write was decided (nanoTime).
   *
   * @param proc the client process ({@code handle} up to its first '/')
   */
  public record Section(
      String handle, String proc, String key, String side, long token, String phase, long t) {

    /** Whether a holder of side {@code other} on the same key conflicts with this one. */
    public boolean conflictsWith(String otherKey, String other) {
      if (!key.equals(otherKey) || side.equals("S") || other.equals("S")) {
        return false;
      }
      return !(side.equals("R") && other.equals("R"));
    }
  }

  /** The open critical sections (begin written, neither end nor abandon yet). */
  public java.util.List<Section> openSections() {
    return java.util.List.copyOf(openSections.values());
  }

  /**
   * The first accepted {@code begin} since {@code sinceNanos}, of another process than {@code
   * victim}'s, that conflicts with {@code victim}: another holder was granted what the victim held.
   */
  public synchronized java.util.Optional<Section> conflictingBeginSince(
      Section victim, long sinceNanos) {
    int i = begins.size();
    while (i > 0 && begins.get(i - 1).t() >= sinceNanos) {
      i--;
    }
    for (; i < begins.size(); i++) {
      Section b = begins.get(i);
      if (!b.proc().equals(victim.proc()) && victim.conflictsWith(b.key(), b.side())) {
        return java.util.Optional.of(b);
      }
    }
    return java.util.Optional.empty();
  }

  /** Decides one write; public for the checker's unit tests. */
  public synchronized boolean write(
      String key, String side, long token, String handle, String phase) {
    if (phase.equals("abandon")) {
      // not a write: the holder heard of its loss and gives up its critical section
      openByHandle.remove(handle);
      openSince.remove(handle);
      openSections.remove(handle);
      return true;
    }
    long all = highestAll.getOrDefault(key, Long.MIN_VALUE);
    long writer = highestWriter.getOrDefault(key, Long.MIN_VALUE);
    boolean accept;
    long against;
    switch (side) {
      case "M", "W" -> {
        accept = token >= all;
        against = all;
      }
      case "R" -> {
        accept = token >= writer;
        against = writer;
      }
      case "S" -> {
        accept = true;
        against = all;
      }
      default -> throw new IllegalArgumentException("unknown side " + side);
    }
    if (accept) {
      highestAll.put(key, Math.max(all, token));
      if (!side.equals("R") && !side.equals("S")) {
        highestWriter.put(key, Math.max(writer, token));
      }
    }
    log.log(
        accept ? "STORE_ACCEPT" : "STORE_REJECT",
        "key",
        key,
        "side",
        side,
        "token",
        token,
        "h",
        handle,
        "phase",
        phase,
        "highest",
        against == Long.MIN_VALUE ? "-" : against);
    if (phase.startsWith("begin")) {
      long now = System.nanoTime();
      openByHandle.put(handle, phase);
      openSince.put(handle, now);
      Section section =
          new Section(
              handle,
              handle.substring(0, Math.max(0, handle.indexOf('/'))),
              key,
              side,
              token,
              phase,
              now);
      openSections.put(handle, section);
      if (accept) {
        begins.add(section);
      }
    } else {
      openByHandle.remove(handle);
      openSince.remove(handle);
      openSections.remove(handle);
    }
    return accept;
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket s = listener.accept();
        sockets.add(s);
        Thread t = new Thread(() -> serve(s), "fenced-store-" + s.getPort());
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void serve(Socket s) {
    try (s;
        BufferedReader in =
            new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
      OutputStream out = s.getOutputStream();
      String line;
      while ((line = in.readLine()) != null) {
        String[] p = line.split(" ");
        String reply;
        if (p.length == 6 && p[0].equals("WRITE")) {
          boolean ok = write(p[1], p[2], Long.parseLong(p[3]), p[4], p[5]);
          reply = ok ? "OK" : "REJECT";
        } else {
          reply = "ERROR bad request";
        }
        out.write((reply + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException | RuntimeException e) {
      // a killed client; its connection is over
    } finally {
      sockets.remove(s);
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    log.close();
  }
}
