package io.zklock.bench;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A peer's real server, started by the bench from the binary found on {@code PATH} (Debian's
 * packages), on loopback free ports with a throw-away data directory, and killed at the end of the
 * run: {@code redis-server} for Redisson, {@code etcd} (one member or a cluster) for jetcd.
 */
abstract class PeerServer implements AutoCloseable {
  static final String LOOPBACK = "127.0.0.1";

  final Path dir;
  final List<Process> processes = new ArrayList<>();

  /** The client port of each member, in member order. */
  final List<Integer> clientPorts = new ArrayList<>();

  PeerServer(String prefix) throws IOException {
    this.dir = Files.createTempDirectory(prefix);
  }

  /** The binary on {@code PATH} (or in /usr/sbin, /usr/bin), if installed. */
  static Optional<Path> onPath(String name) {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(File.pathSeparator)));
    }
    dirs.addAll(List.of("/usr/bin", "/usr/sbin", "/usr/local/bin"));
    for (String d : dirs) {
      if (d.isEmpty()) {
        continue;
      }
      Path p = Path.of(d, name);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), 0));
      return s.getLocalPort();
    }
  }

  Process spawn(List<String> command, Path log) throws IOException {
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    processes.add(p);
    return p;
  }

  static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(LOOPBACK, port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** What the server says about its durability, asked of the running server. */
  abstract String durability();

  /** A short name: "redis-server 7.0.15, 1 server". */
  abstract String describe();

  String logTail() {
    StringBuilder sb = new StringBuilder();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".log")).toList()) {
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        sb.append("\n--- ").append(f.getFileName()).append(" ---\n");
        lines
            .subList(Math.max(0, lines.size() - 10), lines.size())
            .forEach(l -> sb.append(l).append('\n'));
      }
    } catch (IOException e) {
      sb.append("(no log: ").append(e).append(')');
    }
    return sb.toString();
  }

  @Override
  public void close() {
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a temporary directory: best effort
    }
  }

  static void awaitReady(PeerServer s, Process p, int port, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!accepts(port)) {
      if (!p.isAlive()) {
        throw new IllegalStateException(what + " exited with " + p.exitValue() + s.logTail());
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + " did not listen within 30 s" + s.logTail());
      }
      Thread.sleep(20);
    }
  }

  // ------------------------------------------------------------------ Redis

  /** {@code redis-server} with its defaults (in memory, no append-only file: no fsync). */
  static final class Redis extends PeerServer {
    static final String INSTALL = "apt-get install -y redis-server";

    Redis(Path binary) throws Exception {
      super("zklock-bench-redis-");
      int port = freePort();
      clientPorts.add(port);
      Process p =
          spawn(
              List.of(
                  binary.toString(),
                  "--port",
                  Integer.toString(port),
                  "--bind",
                  LOOPBACK,
                  "--dir",
                  dir.toString(),
                  "--daemonize",
                  "no",
                  "--logfile",
                  ""),
              dir.resolve("redis.log"));
      awaitReady(this, p, port, "redis-server");
      // awaitReady sees the port; wait for the server to answer too
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!command("PING").contains("PONG")) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("redis-server does not answer PING" + logTail());
        }
        Thread.sleep(20);
      }
    }

    static Optional<Redis> startIfInstalled() throws Exception {
      Optional<Path> bin = onPath("redis-server");
      return bin.isEmpty() ? Optional.empty() : Optional.of(new Redis(bin.get()));
    }

    int port() {
      return clientPorts.get(0);
    }

    /** One inline command, its raw RESP answer ("" if the server did not answer). */
    String command(String line) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(LOOPBACK, port()), 1000);
        s.setSoTimeout(2000);
        OutputStream out = s.getOutputStream();
        out.write((line + "\r\nQUIT\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        InputStream in = s.getInputStream();
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "";
      }
    }

    /** A field of {@code INFO section}, or "" if absent. */
    String info(String section, String field) {
      for (String l : command("INFO " + section).split("\r\n")) {
        if (l.startsWith(field + ":")) {
          return l.substring(field.length() + 1).trim();
        }
      }
      return "";
    }

    /** Commands the server processed since it started (INFO stats). */
    long commandsProcessed() {
      String v = info("stats", "total_commands_processed");
      return v.isEmpty() ? -1 : Long.parseLong(v);
    }

    @Override
    String durability() {
      String aof = info("persistence", "aof_enabled");
      return "0".equals(aof)
          ? "off (append-only file disabled: writes live in memory, no fsync)"
          : "append-only file enabled (aof_enabled=" + aof + ")";
    }

    @Override
    String describe() {
      return "redis-server " + info("server", "redis_version") + ", 1 server";
    }
  }

  // ------------------------------------------------------------------ etcd

  /** {@code etcd} with its defaults (fsync of the write-ahead log on every commit). */
  static final class Etcd extends PeerServer {
    static final String INSTALL = "apt-get install -y etcd-server";
    private final HttpClient http = HttpClient.newHttpClient();

    Etcd(Path binary, int members) throws Exception {
      super("zklock-bench-etcd-");
      List<Integer> peerPorts = new ArrayList<>();
      for (int i = 0; i < members; i++) {
        clientPorts.add(freePort());
        peerPorts.add(freePort());
      }
      StringBuilder cluster = new StringBuilder();
      for (int i = 0; i < members; i++) {
        cluster.append(i == 0 ? "" : ",").append("m").append(i).append("=http://");
        cluster.append(LOOPBACK).append(':').append(peerPorts.get(i));
      }
      List<Process> started = new ArrayList<>();
      for (int i = 0; i < members; i++) {
        String client = "http://" + LOOPBACK + ":" + clientPorts.get(i);
        String peer = "http://" + LOOPBACK + ":" + peerPorts.get(i);
        started.add(
            spawn(
                List.of(
                    binary.toString(),
                    "--name",
                    "m" + i,
                    "--data-dir",
                    dir.resolve("m" + i).toString(),
                    "--listen-client-urls",
                    client,
                    "--advertise-client-urls",
                    client,
                    "--listen-peer-urls",
                    peer,
                    "--initial-advertise-peer-urls",
                    peer,
                    "--initial-cluster",
                    cluster.toString(),
                    "--initial-cluster-state",
                    "new",
                    "--initial-cluster-token",
                    "zklock-bench",
                    "--log-level",
                    "warn"),
                dir.resolve("etcd-m" + i + ".log")));
      }
      for (int i = 0; i < members; i++) {
        awaitReady(this, started.get(i), clientPorts.get(i), "etcd member " + i);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      for (int i = 0; i < members; i++) {
        while (!healthy(i)) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("etcd is not healthy within 60 s" + logTail());
          }
          Thread.sleep(50);
        }
      }
    }

    static Optional<Etcd> startIfInstalled(int members) throws Exception {
      Optional<Path> bin = onPath("etcd");
      return bin.isEmpty() ? Optional.empty() : Optional.of(new Etcd(bin.get(), members));
    }

    private boolean healthy(int member) {
      return get(member, "/health").contains("\"true\"");
    }

    private String get(int member, String path) {
      try {
        HttpRequest req =
            HttpRequest.newBuilder(
                    URI.create("http://" + LOOPBACK + ":" + clientPorts.get(member) + path))
                .timeout(Duration.ofSeconds(2))
                .build();
        return http.send(req, HttpResponse.BodyHandlers.ofString()).body();
      } catch (IOException e) {
        return "";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "";
      }
    }

    /** A counter of every member's Prometheus metrics, summed (-1 if absent). */
    long metric(String name) {
      long sum = 0;
      boolean found = false;
      for (int i = 0; i < clientPorts.size(); i++) {
        for (String l : get(i, "/metrics").split("\n")) {
          if (l.startsWith(name + " ")) {
            sum += (long) Double.parseDouble(l.substring(name.length() + 1).trim());
            found = true;
          }
        }
      }
      return found ? sum : -1;
    }

    /** fsyncs of the write-ahead log, all members. */
    long walFsyncs() {
      return metric("etcd_disk_wal_fsync_duration_seconds_count");
    }

    /** Milliseconds spent in fsyncs of the write-ahead log, all members. */
    double walFsyncMillis() {
      double sum = 0;
      boolean found = false;
      String name = "etcd_disk_wal_fsync_duration_seconds_sum";
      for (int i = 0; i < clientPorts.size(); i++) {
        for (String l : get(i, "/metrics").split("\n")) {
          if (l.startsWith(name + " ")) {
            sum += Double.parseDouble(l.substring(name.length() + 1).trim()) * 1000;
            found = true;
          }
        }
      }
      return found ? sum : -1;
    }

    /** gRPC requests the members handled (a client request to one member counts once). */
    long requestsHandled() {
      long sum = 0;
      boolean found = false;
      for (int i = 0; i < clientPorts.size(); i++) {
        for (String l : get(i, "/metrics").split("\n")) {
          if (l.startsWith("grpc_server_started_total{")) {
            int sp = l.lastIndexOf(' ');
            sum += (long) Double.parseDouble(l.substring(sp + 1).trim());
            found = true;
          }
        }
      }
      return found ? sum : -1;
    }

    @Override
    String durability() {
      return "fsync of the write-ahead log on every commit (etcd's default)";
    }

    @Override
    String describe() {
      String v = get(0, "/version");
      int at = v.indexOf("\"etcdserver\":\"");
      String version = at < 0 ? "?" : v.substring(at + 14, v.indexOf('"', at + 14));
      return "etcd "
          + version
          + ", "
          + clientPorts.size()
          + (clientPorts.size() == 1 ? " member" : " members");
    }
  }
}
