package io.zklock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on 127.0.0.1 that forwards to one target and injects network faults, for putting
 * between a ZooKeeper client and a server.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.start(zk.connectString())) {
 *   ZooKeeper client = new ZooKeeper(proxy.connectString(), 2000, watcher);
 *   proxy.cut();        // client: Disconnected, then SyncConnected again through the proxy
 *   proxy.blackhole();  // client: Disconnected; after the session timeout the server expires it
 *   proxy.pass();       // client reconnects and learns Expired
 * }
 * }</pre>
 *
 * <p>Modes (a new mode applies at once to existing and new connections):
 *
 * <ul>
 *   <li>{@link #pass()}: forward both directions (the initial mode).
 *   <li>{@link #blackhole()}: keep connections open and accept new ones, but forward nothing in
 *       either direction, like a network partition: the client sees no answers and times out, the
 *       server hears nothing. Bytes already read are held, not dropped, and delivered in order when
 *       the mode returns to pass; a side that closes its socket meanwhile is not reported to the
 *       other side until then.
 *   <li>{@link #refuse()}: close every connection now and close each new connection as soon as it
 *       is accepted (the client sees its connection closed, as if the port refused it).
 * </ul>
 *
 * <p>{@link #cut()} closes every current connection once (both sides see the close) and keeps the
 * mode: in pass mode the client's next connection is forwarded again. {@link #delay(Duration)} adds
 * latency to every chunk of bytes, in both directions, in any mode: a delay line, not a queue of
 * sleeps, so bytes sent while earlier bytes are still delayed are delayed by the same amount and no
 * more (pipelined requests keep their pipelining; the delay does not cap throughput).
 *
 * <p>Each connection uses two daemon threads, and one more per direction once a delay has been set;
 * {@link #close()} closes every socket and joins every thread, so nothing outlives the proxy.
 * Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {
  private static final AtomicInteger ids = new AtomicInteger();

  /** What the proxy does with traffic. */
  public enum Mode {
    /** Forward both directions. */
    PASS,
    /** Hold all traffic; connections stay open. */
    BLACKHOLE,
    /** Close all connections and every new one. */
    REFUSE,
    /**
     * Forward requests (client to server) but hold replies (server to client): the server applies
     * what the client sends while the client hears nothing, so a {@link #cut()} then loses the
     * replies, the way a connection dropped right after a request loses them.
     */
    MUTE_REPLIES,
    /**
     * Forward replies and watch events (server to client) but hold requests (client to server):
     * whatever the client can still do without sending anything, it does; anything it sends waits
     * for {@link #pass()}.
     */
    MUTE_REQUESTS
  }

  private final String targetHost;
  private final int targetPort;
  private final ServerSocket listener;
  private final Thread acceptor;
  private final int id = ids.incrementAndGet();
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
  private final Object gate = new Object();
  private final AtomicLong delayNanos = new AtomicLong();
  private volatile Mode mode = Mode.PASS;
  private volatile boolean closed;

  private FaultProxy(String targetHost, int targetPort) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    try {
      this.listener = new ServerSocket();
      listener.setReuseAddress(true);
      listener.bind(new InetSocketAddress(InetAddress.getByName(Ports.LOOPBACK), 0), 50);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind a proxy port on " + Ports.LOOPBACK, e);
    }
    this.acceptor = new Thread(this::acceptLoop, "fault-proxy-" + id + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Starts a proxy to {@code targetHost:targetPort}, in pass mode. */
  public static FaultProxy start(String targetHost, int targetPort) {
    Objects.requireNonNull(targetHost, "targetHost");
    if (targetPort < 1 || targetPort > 65535) {
      throw new IllegalArgumentException("target port out of range: " + targetPort);
    }
    return new FaultProxy(targetHost, targetPort);
  }

  /**
   * Starts a proxy to {@code "host:port"} (for example {@link EmbeddedZooKeeper#connectString()}).
   *
   * @throws IllegalArgumentException if {@code hostPort} is not one {@code host:port}
   */
  public static FaultProxy start(String hostPort) {
    int colon = hostPort == null ? -1 : hostPort.lastIndexOf(':');
    if (colon <= 0 || hostPort.contains(",")) {
      throw new IllegalArgumentException("expected one host:port, got: " + hostPort);
    }
    try {
      return start(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("expected one host:port, got: " + hostPort, e);
    }
  }

  /** One proxy in front of each server of {@code ensemble}, in server order. */
  public static List<FaultProxy> forEnsemble(ZooKeeperEnsemble ensemble) {
    List<FaultProxy> proxies = new ArrayList<>();
    try {
      for (int i = 0; i < ensemble.size(); i++) {
        proxies.add(start(Ports.LOOPBACK, ensemble.clientPort(i)));
      }
      return proxies;
    } catch (RuntimeException e) {
      proxies.forEach(FaultProxy::close);
      throw e;
    }
  }

  /** The connect string that reaches the targets of all {@code proxies}. */
  public static String connectString(List<FaultProxy> proxies) {
    StringJoiner joiner = new StringJoiner(",");
    proxies.forEach(p -> joiner.add(p.connectString()));
    return joiner.toString();
  }

  /** {@code "127.0.0.1:<port>"}: give this to the client instead of the server's address. */
  public String connectString() {
    return Ports.LOOPBACK + ":" + port();
  }

  /** The proxy's own port. */
  public int port() {
    return listener.getLocalPort();
  }

  /** The current mode. */
  public Mode mode() {
    return mode;
  }

  /** The number of open client connections. */
  public int activeConnections() {
    return connections.size();
  }

  /** Forwards traffic again (releasing anything held by {@link #blackhole()}). */
  public void pass() {
    setMode(Mode.PASS);
  }

  /** Holds all traffic of current and new connections without closing them. */
  public void blackhole() {
    setMode(Mode.BLACKHOLE);
  }

  /**
   * Forwards the client's requests but holds the server's replies (see {@link Mode#MUTE_REPLIES}).
   * Follow with {@link #cut()} and {@link #pass()} to drop the held replies and let the client
   * reconnect.
   */
  public void muteReplies() {
    setMode(Mode.MUTE_REPLIES);
  }

  /**
   * Forwards the server's replies and watch events but holds the client's requests (see {@link
   * Mode#MUTE_REQUESTS}); {@link #pass()} delivers them.
   */
  public void muteRequests() {
    setMode(Mode.MUTE_REQUESTS);
  }

  /** Closes every connection now and every new one on arrival, until another mode is set. */
  public void refuse() {
    setMode(Mode.REFUSE);
    closeAllConnections();
  }

  /** Closes every current connection now; the mode stays as it is. */
  public void cut() {
    closeAllConnections();
  }

  /**
   * Delivers each chunk of bytes {@code delay} after the proxy read it, in both directions (a round
   * trip through the proxy pays it twice). Chunks keep their order, and a chunk read while earlier
   * ones are still delayed is not delayed further by them. {@link Duration#ZERO} removes it (chunks
   * already delayed are still delivered at their time, in order).
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public void delay(Duration delay) {
    Objects.requireNonNull(delay, "delay");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    delayNanos.set(delay.toNanos());
  }

  /** Closes the listener and every connection and waits for all proxy threads to end. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    closeAllConnections();
    synchronized (gate) {
      gate.notifyAll();
    }
    for (Thread t : threads) {
      t.interrupt(); // wakes a pump sleeping in delay()
    }
    join(acceptor);
    for (Thread t : threads) {
      join(t);
    }
  }

  @Override
  public String toString() {
    return "FaultProxy["
        + connectString()
        + " -> "
        + targetHost
        + ":"
        + targetPort
        + ", "
        + mode
        + "]";
  }

  private void setMode(Mode newMode) {
    synchronized (gate) {
      mode = newMode;
      gate.notifyAll();
    }
  }

  private void closeAllConnections() {
    for (Connection c : connections) {
      c.close();
    }
  }

  private static void join(Thread t) {
    if (t == Thread.currentThread()) {
      return;
    }
    try {
      t.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (closed) {
          return;
        }
        continue;
      }
      if (closed || mode == Mode.REFUSE) {
        closeQuietly(client);
        continue;
      }
      Socket server = new Socket();
      try {
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        server.connect(new InetSocketAddress(targetHost, targetPort), 2000);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(server);
        continue;
      }
      Connection c = new Connection(client, server);
      connections.add(c);
      if (closed) {
        c.close();
      } else {
        c.start();
      }
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }

  /** A chunk read from one side, to be written to the other side at {@code dueNanos}. */
  private record Chunk(byte[] bytes, long dueNanos) {}

  /**
   * Chunks held in one direction's delay line, at most: the reader blocks beyond (backpressure).
   */
  private static final int DELAY_LINE_CHUNKS = 256;

  /**
   * A client socket, its upstream socket, the two threads reading from them and, once a delay is
   * set, one delay line per direction with the thread that writes its chunks when they are due.
   */
  private final class Connection {
    private final Socket client;
    private final Socket server;
    private final DelayLine up = new DelayLine(false);
    private final DelayLine down = new DelayLine(true);
    private volatile boolean done;

    Connection(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    void start() {
      int n = client.getPort();
      up.name = "fault-proxy-" + id + "-" + n + "-up";
      down.name = "fault-proxy-" + id + "-" + n + "-down";
      spawn(() -> pump(client, server, up), up.name);
      spawn(() -> pump(server, client, down), down.name);
    }

    private Thread spawn(Runnable body, String name) {
      Thread t = new Thread(body, name);
      t.setDaemon(true);
      threads.add(t);
      t.start();
      return t;
    }

    private void pump(Socket from, Socket to, DelayLine line) {
      byte[] buffer = new byte[16 * 1024];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        line.out = out;
        while (!done) {
          int n = in.read(buffer);
          if (!awaitForwarding(line.replies)) {
            return;
          }
          if (n < 0) {
            line.finish(); // the peer's close reaches the other side after the delayed bytes
            return;
          }
          long delay = delayNanos.get();
          if (delay == 0 && line.pending.get() == 0) {
            out.write(buffer, 0, n); // nothing delayed ahead of these bytes: forward now
            out.flush();
          } else {
            line.put(java.util.Arrays.copyOf(buffer, n), System.nanoTime() + delay);
          }
        }
      } catch (SocketException e) {
        // closed by cut(), close() or the peer
      } catch (IOException e) {
        // the connection is over either way
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        if (!line.finishing) {
          close();
        }
        threads.remove(Thread.currentThread());
      }
    }

    /** One direction's delayed chunks, in order, and the thread that writes each when due. */
    private final class DelayLine {
      final boolean replies;
      final BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>(DELAY_LINE_CHUNKS);
      final AtomicLong pending = new AtomicLong();
      volatile String name;
      volatile OutputStream out;
      volatile Thread writer;
      volatile boolean finishing;
      private long lastDue = Long.MIN_VALUE;

      DelayLine(boolean replies) {
        this.replies = replies;
      }

      /** Called by the reading thread only. */
      void put(byte[] bytes, long due) throws InterruptedException {
        if (writer == null) {
          writer = spawn(this::drain, name + "-delay");
        }
        // a shorter delay set meanwhile must not overtake bytes already in the line
        lastDue = lastDue == Long.MIN_VALUE ? due : Math.max(due, lastDue);
        pending.incrementAndGet();
        chunks.put(new Chunk(bytes, lastDue));
      }

      /** The reading side ended: deliver what is delayed, then close the connection. */
      void finish() throws InterruptedException {
        if (writer == null) {
          return; // nothing delayed: the pump's caller closes at once
        }
        finishing = true;
        pending.incrementAndGet();
        chunks.put(new Chunk(null, lastDue));
      }

      private void drain() {
        try {
          while (!done) {
            Chunk c = chunks.take();
            long wait;
            while ((wait = c.dueNanos() - System.nanoTime()) > 0 && !done) {
              LockSupport.parkNanos(wait);
              if (Thread.interrupted()) {
                return;
              }
            }
            if (c.bytes() == null || !awaitForwarding(replies)) {
              return;
            }
            out.write(c.bytes());
            out.flush();
            pending.decrementAndGet();
          }
        } catch (IOException e) {
          // closed by cut(), close() or the peer
        } catch (InterruptedException e) {
          // the connection or the proxy is closing
        } finally {
          Connection.this.close();
          threads.remove(Thread.currentThread());
        }
      }

      void stop() {
        Thread t = writer;
        if (t != null && t != Thread.currentThread()) {
          t.interrupt(); // it may wait in take() or parkNanos(); socket writes end with the socket
        }
      }
    }

    /** Blocks while blackholed; false if the connection or proxy closed meanwhile. */
    private boolean awaitForwarding(boolean replies) throws InterruptedException {
      synchronized (gate) {
        while ((mode == Mode.BLACKHOLE
                || replies && mode == Mode.MUTE_REPLIES
                || !replies && mode == Mode.MUTE_REQUESTS)
            && !done
            && !closed) {
          gate.wait();
        }
      }
      return !done && !closed;
    }

    void close() {
      if (done) {
        return;
      }
      done = true;
      connections.remove(this);
      closeQuietly(client);
      closeQuietly(server);
      up.stop();
      down.stop();
      synchronized (gate) {
        gate.notifyAll();
      }
    }
  }
}
