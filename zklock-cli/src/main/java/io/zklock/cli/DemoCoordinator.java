package io.zklock.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The demo's side of the worker protocol (see {@link DemoWorker}): collects every worker's events,
 * and owns the shared ledger. The ledger accepts a write to a lock's record only if its fencing
 * token is higher than every token it has accepted for that lock; otherwise the write is stale and
 * rejected.
 */
final class DemoCoordinator implements AutoCloseable {

  /** One thing a worker (or the demo itself) reported, at its wall-clock time in microseconds. */
  record Event(long micros, String worker, String type, String lock, long token, String detail) {}

  /** A ledger write, accepted or rejected. */
  record Write(long micros, String worker, String lock, long token, boolean accepted) {}

  /** Asked on every grant, on the worker's connection thread, before the worker may go on. */
  interface GrantHook {
    /**
     * Returns false to leave the worker without an answer (it is being killed).
     *
     * @param worker the worker's id
     */
    boolean onGrant(String worker, String lock, long token);
  }

  private final ServerSocket server;
  private final Thread acceptor;
  private final List<Socket> sockets = new ArrayList<>();
  private final List<Event> events = new ArrayList<>();
  private final List<Write> writes = new ArrayList<>();
  private final Map<String, Long> newest = new HashMap<>();
  private final Map<String, String> holders = new HashMap<>();
  private final Map<String, Long> pids = new HashMap<>();
  private final int minHoldMillis;
  private final int maxHoldMillis;
  private volatile GrantHook hook = (w, l, t) -> true;
  private long grants;
  private volatile boolean closed;
  private volatile boolean frozen;

  DemoCoordinator(int minHoldMillis, int maxHoldMillis) throws IOException {
    this.minHoldMillis = minHoldMillis;
    this.maxHoldMillis = maxHoldMillis;
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::acceptLoop, "demo-coordinator");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  void grantHook(GrantHook hook) {
    this.hook = hook;
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        synchronized (this) {
          sockets.add(s);
        }
        Thread t = new Thread(() -> serve(s), "demo-worker-connection");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        if (!closed) {
          System.err.println("zklock demo: accept failed: " + e);
        }
        return;
      }
    }
  }

  private void serve(Socket socket) {
    String worker = "?";
    try (BufferedReader in =
            new BufferedReader(
                new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        Writer out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (frozen) {
          return; // the run is over: nothing more is recorded, the worker is about to be stopped
        }
        String[] f = line.split(" ");
        switch (f[0]) {
          case "HELLO":
            worker = f[1];
            synchronized (this) {
              pids.put(worker, Long.parseLong(f[2]));
            }
            break;
          case "WAIT":
          case "GIVEUP":
            record(new Event(Long.parseLong(f[1]), worker, f[0], f[2], 0, ""));
            break;
          case "GRANT":
            {
              long token = Long.parseLong(f[3]);
              synchronized (this) {
                grants++;
                holders.put(f[2], worker);
              }
              record(new Event(Long.parseLong(f[1]), worker, "GRANT", f[2], token, ""));
              if (!hook.onGrant(worker, f[2], token)) {
                return;
              }
              int hold = ThreadLocalRandom.current().nextInt(minHoldMillis, maxHoldMillis + 1);
              reply(out, "GO " + hold);
              break;
            }
          case "WRITE":
            {
              long token = Long.parseLong(f[3]);
              Write w = write(Long.parseLong(f[1]), worker, f[2], token);
              reply(out, w.accepted() ? "OK" : "REJECTED " + newest(f[2]));
              break;
            }
          case "RELEASE":
          case "LOST":
            {
              long token = Long.parseLong(f[3]);
              synchronized (this) {
                if (holders.get(f[2]) != null && holders.get(f[2]).equals(worker)) {
                  holders.remove(f[2]);
                }
              }
              record(
                  new Event(
                      Long.parseLong(f[1]), worker, f[0], f[2], token, f.length > 4 ? f[4] : ""));
              break;
            }
          default:
            System.err.println("zklock demo: unknown message from " + worker + ": " + line);
        }
      }
    } catch (IOException e) {
      // the worker died (killed by the demo, or at the end)
    }
  }

  private static void reply(Writer out, String line) throws IOException {
    out.write(line);
    out.write('\n');
    out.flush();
  }

  /** The ledger: accept only tokens newer than all accepted before for the same lock. */
  private synchronized Write write(long micros, String worker, String lock, long token) {
    long seen = newest.getOrDefault(lock, Long.MIN_VALUE);
    boolean accepted = token > seen;
    if (accepted) {
      newest.put(lock, token);
    }
    Write w = new Write(micros, worker, lock, token, accepted);
    writes.add(w);
    notifyAll();
    return w;
  }

  /** Ends the run: later messages are neither recorded nor answered. */
  void freeze() {
    frozen = true;
  }

  synchronized void record(Event e) {
    events.add(e);
    notifyAll();
  }

  synchronized long newest(String lock) {
    return newest.getOrDefault(lock, Long.MIN_VALUE);
  }

  /** A worker was killed: it no longer holds anything. */
  synchronized void forget(String worker) {
    holders.values().removeIf(worker::equals);
  }

  synchronized long grants() {
    return grants;
  }

  synchronized Map<String, String> holders() {
    return new HashMap<>(holders);
  }

  synchronized Long pid(String worker) {
    return pids.get(worker);
  }

  synchronized List<Event> events() {
    return new ArrayList<>(events);
  }

  synchronized List<Write> writes() {
    return new ArrayList<>(writes);
  }

  /** Waits until {@code condition} holds (checked on every event or write), or the deadline. */
  synchronized boolean await(java.util.function.BooleanSupplier condition, long timeoutMillis)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    while (!condition.getAsBoolean()) {
      long left = (deadline - System.nanoTime()) / 1_000_000L;
      if (left <= 0) {
        return false;
      }
      wait(left);
    }
    return true;
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    synchronized (this) {
      for (Socket s : sockets) {
        try {
          s.close();
        } catch (IOException e) {
          // closing anyway
        }
      }
    }
  }
}
