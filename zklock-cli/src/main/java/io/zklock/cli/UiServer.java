package io.zklock.cli;

import static io.zklock.cli.LockListing.quote;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.zklock.LockInfo;
import io.zklock.LockNode;
import io.zklock.ZkLocks;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of {@code zklock ui}: the page, its JSON endpoints and one server-sent event stream
 * per browser, all served from one {@link UiModel}. Browsers never cause a ZooKeeper request,
 * except an operator's release with {@code --allow-release}.
 *
 * <p>Endpoints: {@code GET /} the page; {@code GET /api/locks?q=&kind=&state=&offset=&limit=} a
 * page of locks; {@code GET /api/lock?name=} one lock with every waiter; {@code GET
 * /api/timeline?after=} the timeline; {@code GET /api/stats} what the view costs; {@code GET
 * /api/events} the event stream; {@code POST /api/release?lock=&action=force|request[&node=]} with
 * the header {@code X-Zklock-Token}, only with {@code --allow-release}.
 */
final class UiServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(UiServer.class);

  /**
   * The audit trail of releases: every request (refused ones at WARN), every forced holder (WARN)
   * and requested one (INFO). The jar's logging configuration keeps it on at INFO whatever {@code
   * ZKLOCK_LOG} says. The access token is never logged.
   */
  static final Logger audit = LoggerFactory.getLogger("io.zklock.cli.ui.audit");

  static {
    // the JDK's server leaves Nagle's algorithm on: small event messages would wait for the
    // browser's delayed acknowledgement (40 ms on Linux) before they go out
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  static final String TOKEN_HEADER = "X-Zklock-Token";
  static final String OPERATOR_HEADER = "X-Zklock-Operator";
  static final int MAX_LIMIT = 500;

  /** The clients the header counts by name; the rest only in the total. */
  static final int TOP_CLIENTS = 12;

  /** How often an idle event stream sends a comment, so that a dead view shows in the page. */
  static final int KEEP_ALIVE_SECONDS = 5;

  private final ZkLocks locks;
  private final UiModel model;
  private final HttpServer http;
  private final ExecutorService threads;
  private final boolean allowRelease;
  private final String token;
  private final Set<BlockingQueue<String>> browsers = ConcurrentHashMap.newKeySet();
  private final AtomicLong served = new AtomicLong();
  private final AtomicLong eventBytes = new AtomicLong();
  private final UiModel.Listener listener =
      new UiModel.Listener() {
        @Override
        public void changed(long version, List<UiModel.Event> events) {
          broadcast(version, events);
        }

        @Override
        public void viewChanged(UiModel.ViewState view) {
          UiServer.this.viewChanged(view);
        }
      };
  private final byte[] page;
  private volatile boolean stopped;

  UiServer(ZkLocks locks, UiModel model, String bind, int port, boolean allowRelease)
      throws IOException {
    this.locks = locks;
    this.model = model;
    this.allowRelease = allowRelease;
    byte[] raw = new byte[24];
    new SecureRandom().nextBytes(raw);
    this.token = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    try (InputStream in = UiServer.class.getResourceAsStream("ui.html")) {
      if (in == null) {
        throw new IOException("ui.html is missing from the jar");
      }
      this.page = in.readAllBytes();
    }
    this.http = HttpServer.create(new InetSocketAddress(bind, port), 64);
    this.threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "zklock-ui-http");
              t.setDaemon(true);
              return t;
            });
    http.setExecutor(threads);
    http.createContext("/", this::route);
    model.addListener(listener);
  }

  void start() {
    http.start();
  }

  int port() {
    return http.getAddress().getPort();
  }

  String token() {
    return token;
  }

  int browsers() {
    return browsers.size();
  }

  private void route(HttpExchange ex) throws IOException {
    served.incrementAndGet();
    try {
      String path = ex.getRequestURI().getPath();
      String method = ex.getRequestMethod();
      if (path.equals("/api/release")) {
        if (!method.equals("POST")) {
          send(ex, 405, "text/plain", "POST only\n");
        } else {
          release(ex);
        }
        return;
      }
      if (!method.equals("GET") && !method.equals("HEAD")) {
        send(ex, 405, "text/plain", "GET only\n");
        return;
      }
      Map<String, String> q = query(ex.getRequestURI());
      switch (path) {
        case "/", "/index.html" -> sendBytes(ex, 200, "text/html; charset=utf-8", page);
        case "/api/locks" -> send(ex, 200, "application/json", locksJson(q));
        case "/api/lock" -> lockJson(ex, q.getOrDefault("name", ""));
        case "/api/timeline" -> send(ex, 200, "application/json", timelineJson(q));
        case "/api/view" -> send(ex, 200, "application/json", model.viewState().json());
        case "/api/stats" -> send(ex, 200, "application/json", statsJson());
        case "/api/events" -> events(ex);
        default -> send(ex, 404, "text/plain", "not found\n");
      }
    } catch (RuntimeException e) {
      log.warn("ui request {} failed", ex.getRequestURI(), e);
      send(ex, 500, "text/plain", "error: " + e.getMessage() + "\n");
    } finally {
      ex.close();
    }
  }

  // ------------------------------------------------------------------ JSON

  /**
   * A page of locks: filtered, ordered and cut on the server, so the browser gets at most {@code
   * limit} locks whatever their number. With {@code known} (the version the browser's rows are
   * from) and {@code have} (the ids of the rows it has), a row it has that has not changed since
   * comes as its id alone: an update carries only what changed, and the page's order.
   */
  String locksJson(Map<String, String> q) {
    long now = System.currentTimeMillis();
    UiModel.Snapshot snap = model.snapshot();
    UiModel.Query query =
        new UiModel.Query(
            q.get("q"),
            q.get("kind"),
            q.get("state"),
            q.get("client"),
            "1".equals(q.get("waiting")) || "true".equals(q.get("waiting")),
            parseLong(q.get("heldLonger"), 0));
    List<UiModel.Row> matched =
        new ArrayList<>(snap.rows().stream().filter(UiModel.filter(query, now)).toList());
    matched.sort(UiModel.order(q.get("sort")));
    int offset = (int) Math.max(0, parseLong(q.get("offset"), 0));
    int limit = (int) Math.min(MAX_LIMIT, Math.max(1, parseLong(q.get("limit"), 50)));
    int maxWaiters = (int) Math.max(0, parseLong(q.get("waiters"), 10));
    long known = parseLong(q.get("known"), -1);
    Set<Integer> have = new HashSet<>();
    if (known >= 0 && q.get("have") != null && !q.get("have").isEmpty()) {
      for (String id : q.get("have").split(",")) {
        have.add((int) parseLong(id, -1));
      }
    }
    UiModel.ViewState view = model.viewState();
    StringBuilder sb = new StringBuilder();
    sb.append("{\"namespace\":").append(quote(locks.namespace()));
    sb.append(",\"time\":").append(quote(Instant.ofEpochMilli(now).toString()));
    sb.append(",\"now\":").append(now);
    sb.append(",\"version\":").append(snap.version());
    sb.append(",\"view\":").append(view.json());
    sb.append(",\"total\":").append(snap.rows().size());
    sb.append(",\"held\":").append(snap.held());
    sb.append(",\"waiting\":").append(snap.waiting());
    sb.append(",\"matched\":").append(matched.size());
    sb.append(",\"offset\":").append(offset);
    sb.append(",\"limit\":").append(limit);
    sb.append(",\"allowRelease\":").append(allowRelease);
    sb.append(",\"error\":").append(quote(view.error()));
    if (known < 0 || snap.countsChanged() > known) {
      sb.append(",\"counts\":").append(countsJson(snap));
    }
    SessionProbe.Answer probed = model.lastProbe();
    sb.append(",\"probe\":{\"known\":")
        .append(probed.known())
        .append(",\"why\":")
        .append(quote(probed.why()))
        .append('}');
    StringBuilder order = new StringBuilder();
    sb.append(",\"locks\":[");
    int end = Math.min(matched.size(), offset + limit);
    for (int i = offset; i < end; i++) {
      UiModel.Row r = matched.get(i);
      order.append(i > offset ? "," : "").append(r.id());
      if (known >= 0 && have.contains(r.id()) && r.changed() <= known) {
        continue; // the browser has it as it is
      }
      if (sb.charAt(sb.length() - 1) != '[') {
        sb.append(',');
      }
      sb.append(
          UiModel.lockJson(
              r.info(), now, maxWaiters, r.id(), r.grants(), model::sessionLink, model::session));
    }
    sb.append("],\"order\":[").append(order).append(']');
    return sb.append('}').toString();
  }

  /** The counts of the header: locks per kind, and the clients with the most nodes. */
  private static String countsJson(UiModel.Snapshot snap) {
    StringBuilder sb = new StringBuilder("{\"kinds\":{");
    int i = 0;
    for (Map.Entry<String, Integer> e : snap.kinds().entrySet()) {
      sb.append(i++ > 0 ? "," : "").append(quote(e.getKey())).append(':').append(e.getValue());
    }
    sb.append("},\"clients\":[");
    List<Map.Entry<String, Integer>> clients = new ArrayList<>(snap.clients().entrySet());
    clients.sort(
        Map.Entry.<String, Integer>comparingByValue()
            .reversed()
            .thenComparing(Map.Entry.comparingByKey()));
    for (int k = 0; k < Math.min(TOP_CLIENTS, clients.size()); k++) {
      sb.append(k > 0 ? "," : "")
          .append("{\"who\":")
          .append(quote(clients.get(k).getKey()))
          .append(",\"nodes\":")
          .append(clients.get(k).getValue())
          .append('}');
    }
    return sb.append("],\"clientsTotal\":").append(clients.size()).append('}').toString();
  }

  private void lockJson(HttpExchange ex, String name) throws IOException {
    UiModel.Row r = model.row(name);
    if (r == null) {
      send(ex, 404, "application/json", "{\"error\":\"no such lock\"}");
    } else {
      send(
          ex,
          200,
          "application/json",
          UiModel.lockJson(
              r.info(),
              System.currentTimeMillis(),
              Integer.MAX_VALUE,
              r.id(),
              r.grants(),
              model::sessionLink,
              model::session));
    }
  }

  String timelineJson(Map<String, String> q) {
    long after = parseLong(q.get("after"), 0);
    int limit = (int) parseLong(q.get("limit"), 500);
    StringBuilder sb = new StringBuilder("{\"opened\":").append(model.openedMillis());
    sb.append(",\"events\":[");
    List<UiModel.Event> events =
        model.timeline(
            after,
            Math.max(1, Math.min(limit, UiModel.TIMELINE_LIMIT)),
            q.get("q"),
            q.get("kind"),
            q.get("client"));
    for (int i = 0; i < events.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(events.get(i).json());
    }
    return sb.append("]}").toString();
  }

  String statsJson() {
    io.zklock.LockWatch w = model.watch();
    UiModel.ViewState v = model.viewState();
    return "{\"browsers\":"
        + browsers.size()
        + ",\"session\":"
        + quote("0x" + Long.toHexString(locks.sessionId()))
        + ",\"sessionState\":"
        + quote(v.state())
        + ",\"server\":"
        + quote(v.server())
        + ",\"watchMode\":"
        + quote(w == null ? "NONE" : w.mode().name())
        + ",\"watchRequests\":"
        + (w == null ? 0 : w.requests())
        + ",\"zkReads\":"
        + model.zkReads()
        + ",\"refreshes\":"
        + model.refreshes()
        + ",\"probes\":"
        + model.probes()
        + ",\"httpRequests\":"
        + served.get()
        + ",\"eventBytes\":"
        + eventBytes.get()
        + ",\"version\":"
        + model.version()
        + "}";
  }

  // ------------------------------------------------------------------ events

  /** At most this many timeline events go in one message; the page reads the rest if it wants. */
  static final int EVENTS_PER_MESSAGE = 50;

  private void broadcast(long version, List<UiModel.Event> events) {
    StringBuilder sb = new StringBuilder("{\"version\":").append(version).append(",\"events\":[");
    int from = Math.max(0, events.size() - EVENTS_PER_MESSAGE);
    for (int i = from; i < events.size(); i++) {
      if (i > from) {
        sb.append(',');
      }
      sb.append(events.get(i).json());
    }
    sb.append(']');
    if (from > 0) {
      sb.append(",\"more\":").append(from);
    }
    offer("event: change\ndata: " + sb.append('}') + "\n\n", version);
  }

  private void viewChanged(UiModel.ViewState view) {
    offer("event: view\ndata: " + view.json() + "\n\n", -1);
  }

  private void offer(String msg, long version) {
    for (BlockingQueue<String> b : browsers) {
      if (!b.offer(msg)) {
        b.clear(); // a browser far behind: it reads everything again at the next message
        b.offer(
            "event: change\ndata: {\"version\":"
                + Math.max(version, model.version())
                + ",\"events\":[],\"lagged\":true}\n\n");
      }
    }
  }

  private void events(HttpExchange ex) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.sendResponseHeaders(200, 0);
    BlockingQueue<String> queue = new LinkedBlockingQueue<>(1_000);
    browsers.add(queue);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(
          ("retry: 1000\nevent: hello\ndata: {\"version\":"
                  + model.version()
                  + ",\"view\":"
                  + model.viewState().json()
                  + "}\n\n")
              .getBytes(StandardCharsets.UTF_8));
      out.flush();
      while (!stopped) {
        String msg = queue.poll(KEEP_ALIVE_SECONDS, TimeUnit.SECONDS);
        byte[] bytes = (msg == null ? ": keep-alive\n\n" : msg).getBytes(StandardCharsets.UTF_8);
        eventBytes.addAndGet(bytes.length);
        out.write(bytes);
        out.flush();
      }
    } catch (IOException | InterruptedException gone) {
      // the browser went away, or the server is stopping
    } finally {
      browsers.remove(queue);
    }
  }

  // ------------------------------------------------------------------ release

  private void release(HttpExchange ex) throws IOException {
    String from = String.valueOf(ex.getRemoteAddress());
    Map<String, String> q = query(ex.getRequestURI());
    String lock = q.getOrDefault("lock", "");
    String action = q.getOrDefault("action", "");
    String node = q.get("node");
    String operator = ex.getRequestHeaders().getFirst(OPERATOR_HEADER);
    String name =
        operator == null || operator.isBlank() ? "an operator" : "'" + operator.strip() + "'";
    String what = action + " '" + lock + "'" + (node == null ? "" : " node " + node);
    audit.info("release request from {} by {}: {}", from, name, what);
    if (!allowRelease) {
      refuse(ex, 403, from, name, what, "release is off (no --allow-release)");
      return;
    }
    String origin = ex.getRequestHeaders().getFirst("Origin");
    String host = ex.getRequestHeaders().getFirst("Host");
    if (origin != null && (host == null || !origin.equals("http://" + host))) {
      refuse(ex, 403, from, name, what, "cross-site Origin " + origin);
      return;
    }
    String given = ex.getRequestHeaders().getFirst(TOKEN_HEADER);
    if (given == null
        || !MessageDigest.isEqual(
            given.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8))) {
      refuse(ex, 401, from, name, what, (given == null ? "no" : "wrong") + " access token");
      return;
    }
    String who = name + " at " + from;
    try {
      List<String> done = new ArrayList<>();
      switch (action) {
        case "force" -> {
          LockInfo info = locks.inspect(lock).orElse(null);
          if (info != null) {
            for (LockNode h : info.holders()) {
              if (node == null || node.equals(h.path())) {
                model.forced(h.path(), who);
                if (locks.forceRelease(h)) {
                  done.add(h.path());
                  audit.warn("forced release of '{}' by {}: holder {}", lock, who, describe(h));
                } else {
                  model.unforced(h.path());
                }
              }
            }
          }
        }
        case "request" -> {
          for (LockNode h : locks.requestRelease(lock)) {
            done.add(h.path());
            audit.info("release of '{}' requested by {}: holder {}", lock, who, describe(h));
          }
        }
        default -> {
          refuse(ex, 400, from, name, what, "action must be force or request");
          return;
        }
      }
      if (done.isEmpty()) {
        audit.info("{} by {}: no holder", what, who);
      }
      model.touch(lock);
      StringBuilder sb = new StringBuilder("{\"action\":").append(quote(action));
      sb.append(",\"lock\":").append(quote(lock)).append(",\"nodes\":[");
      for (int i = 0; i < done.size(); i++) {
        sb.append(i > 0 ? "," : "").append(quote(done.get(i)));
      }
      send(ex, 200, "application/json", sb.append("]}").toString());
    } catch (IllegalArgumentException e) {
      refuse(ex, 400, from, name, what, e.getMessage());
    } catch (RuntimeException e) {
      audit.warn("{} by {} failed: {}", what, who, e.toString());
      send(ex, 502, "text/plain", "failed: " + e.getMessage() + "\n");
    }
  }

  private void refuse(
      HttpExchange ex, int status, String from, String name, String what, String why)
      throws IOException {
    audit.warn("refused release request from {} by {}: {}: {}", from, name, what, why);
    send(ex, status, "text/plain", refusal(status, why) + "\n");
  }

  private static String refusal(int status, String why) {
    return switch (status) {
      case 401 -> "access token missing or wrong (header " + TOKEN_HEADER + ")";
      case 403 ->
          why.startsWith("cross-site")
              ? "cross-site request refused"
              : "release is off: start zklock ui with --allow-release";
      default -> why;
    };
  }

  /** A holder as the audit names it: client, host, pid, session, fencing token and node. */
  static String describe(LockNode h) {
    return (h.clientName().isEmpty() ? "?" : h.clientName())
        + " (host "
        + (h.host().isEmpty() ? "?" : h.host())
        + " pid "
        + (h.pid() > 0 ? Long.toString(h.pid()) : "?")
        + ", session 0x"
        + Long.toHexString(h.sessionId())
        + ", token "
        + h.fencingToken()
        + ", node "
        + h.path()
        + ")";
  }

  // ------------------------------------------------------------------ plumbing

  static Map<String, String> query(URI uri) {
    Map<String, String> m = new HashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null) {
      return m;
    }
    for (String kv : raw.split("&")) {
      int eq = kv.indexOf('=');
      String k = eq < 0 ? kv : kv.substring(0, eq);
      String v = eq < 0 ? "" : kv.substring(eq + 1);
      m.put(
          URLDecoder.decode(k, StandardCharsets.UTF_8),
          URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return m;
  }

  private static long parseLong(String s, long dflt) {
    if (s == null || s.isEmpty()) {
      return dflt;
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return dflt;
    }
  }

  private static void send(HttpExchange ex, int status, String type, String body)
      throws IOException {
    sendBytes(ex, status, type, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void sendBytes(HttpExchange ex, int status, String type, byte[] body)
      throws IOException {
    ex.getResponseHeaders().set("Content-Type", type);
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    ex.getResponseHeaders().set("X-Frame-Options", "DENY");
    ex.sendResponseHeaders(status, ex.getRequestMethod().equals("HEAD") ? -1 : body.length);
    if (!ex.getRequestMethod().equals("HEAD")) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    stopped = true;
    model.removeListener(listener);
    http.stop(0);
    threads.shutdownNow();
  }
}
