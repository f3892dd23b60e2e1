package io.zklock.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Headless Chromium driven over the Chrome DevTools protocol with the JDK's own WebSocket client:
 * open a page, evaluate script in it (the page's own code clicks and reads), take a screenshot. No
 * browser driver, no download: the machine's {@code chromium}.
 */
final class Cdp implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final Pattern ID = Pattern.compile("^\\{\"id\":(\\d+),");

  private final Process browser;
  private final WebSocket ws;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<String>> pending = new ConcurrentHashMap<>();

  /** The machine's chromium, or null. */
  static Path chromium() {
    for (String name : List.of("chromium", "chromium-browser")) {
      for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
        Path p = Path.of(d, name);
        if (Files.isExecutable(p)) {
          return p;
        }
      }
    }
    return null;
  }

  /** Starts chromium on {@code url} at {@code width x height} and attaches to its page. */
  static Cdp open(Path chromium, Path profile, String url, int width, int height) throws Exception {
    Process p =
        new ProcessBuilder(
                chromium.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--user-data-dir=" + profile,
                "--window-size=" + width + "," + height,
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
                "about:blank")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      BufferedReader err =
          new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
      CompletableFuture<String> endpoint = new CompletableFuture<>();
      Thread reader =
          new Thread(
              () -> {
                try {
                  String line;
                  while ((line = err.readLine()) != null) {
                    int at = line.indexOf("ws://");
                    if (line.startsWith("DevTools listening on") && at >= 0) {
                      endpoint.complete(line.substring(at).trim());
                    }
                  }
                  endpoint.completeExceptionally(new IllegalStateException("chromium ended"));
                } catch (Exception e) {
                  endpoint.completeExceptionally(e);
                }
              },
              "chromium-stderr");
      reader.setDaemon(true);
      reader.start();
      URI browserWs = URI.create(endpoint.get(60, TimeUnit.SECONDS));
      String list = "http://" + browserWs.getAuthority() + "/json/list";
      String pageWs = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (pageWs == null && System.nanoTime() < deadline) {
        String body =
            HTTP.send(
                    HttpRequest.newBuilder(URI.create(list)).build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher m =
            Pattern.compile("\"type\": \"page\",[^}]*?\"webSocketDebuggerUrl\": \"([^\"]+)\"")
                .matcher(body);
        if (m.find()) {
          pageWs = m.group(1);
        } else {
          Thread.onSpinWait();
        }
      }
      if (pageWs == null) {
        throw new IllegalStateException("chromium shows no page");
      }
      Cdp cdp = new Cdp(p, URI.create(pageWs));
      cdp.call("Page.navigate", "{\"url\":" + LockListing.quote(url) + "}");
      return cdp;
    } catch (Exception e) {
      p.destroyForcibly();
      throw e;
    }
  }

  private Cdp(Process browser, URI page) throws Exception {
    this.browser = browser;
    this.ws =
        HTTP.newWebSocketBuilder()
            .buildAsync(
                page,
                new WebSocket.Listener() {
                  private final StringBuilder buf = new StringBuilder();

                  @Override
                  public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                    buf.append(data);
                    if (last) {
                      String msg = buf.toString();
                      buf.setLength(0);
                      Matcher m = ID.matcher(msg);
                      if (m.find()) {
                        CompletableFuture<String> f = pending.remove(Integer.parseInt(m.group(1)));
                        if (f != null) {
                          f.complete(msg);
                        }
                      }
                    }
                    w.request(1);
                    return null;
                  }
                })
            .get(30, TimeUnit.SECONDS);
  }

  /** Sends one command and returns its raw JSON answer. */
  String call(String method, String paramsJson) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<String> f = new CompletableFuture<>();
    pending.put(id, f);
    ws.sendText(
            "{\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + paramsJson + "}", true)
        .get(10, TimeUnit.SECONDS);
    return f.get(30, TimeUnit.SECONDS);
  }

  /**
   * Evaluates {@code expression} in the page (awaiting a promise) and returns its value as a
   * string: make the expression return a string or a number.
   */
  String eval(String expression) throws Exception {
    String answer =
        call(
            "Runtime.evaluate",
            "{\"expression\":"
                + LockListing.quote("(async () => String(await (" + expression + ")))()")
                + ",\"awaitPromise\":true,\"returnByValue\":true}");
    Matcher m = Pattern.compile("\"value\":\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(answer);
    if (!m.find()) {
      throw new AssertionError("no value from " + expression + ": " + answer);
    }
    return unescape(m.group(1));
  }

  /** Polls {@code condition} in the page (every 5 ms, in the page) until it is true. */
  void until(String condition, Duration atMost) throws Exception {
    String r =
        eval(
            "new Promise(res => { const end = Date.now() + "
                + atMost.toMillis()
                + "; const f = () => { let ok = false; try { ok = !!("
                + condition
                + "); } catch (e) {} if (ok) res('ok'); else if (Date.now() > end) res('timeout');"
                + " else setTimeout(f, 5); }; f(); })");
    if (!r.equals("ok")) {
      throw new AssertionError(
          "not true within "
              + atMost
              + " in the page: "
              + condition
              + "\npage text: "
              + eval(
                  "document.body.innerText.slice(0, 400) + ' | errors: ' + (window.__errors || [])"));
    }
  }

  /** Saves a PNG of the page's viewport. */
  void screenshot(Path to) throws Exception {
    String answer = call("Page.captureScreenshot", "{\"format\":\"png\"}");
    Matcher m = Pattern.compile("\"data\":\"([^\"]+)\"").matcher(answer);
    if (!m.find()) {
      throw new AssertionError("no screenshot: " + answer);
    }
    Files.createDirectories(to.toAbsolutePath().getParent());
    Files.write(to, Base64.getDecoder().decode(m.group(1)));
  }

  private static String unescape(String s) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char n = s.charAt(++i);
      switch (n) {
        case 'n' -> sb.append('\n');
        case 't' -> sb.append('\t');
        case 'r' -> sb.append('\r');
        case 'u' -> {
          sb.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
          i += 4;
        }
        default -> sb.append(n);
      }
    }
    return sb.toString();
  }

  @Override
  public void close() throws Exception {
    try {
      ws.abort();
    } finally {
      browser.destroy();
      if (!browser.waitFor(10, TimeUnit.SECONDS)) {
        browser.destroyForcibly();
      }
    }
  }

  static Duration seconds(long s) {
    return Duration.ofSeconds(s);
  }
}
