package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's timeline as a browser lays it out (issue 24): headless Chromium, 1,400 px wide, runs
 * the page's script and then a check that measures what it drew. Skipped, saying so, where {@code
 * chromium} is not installed ({@code apt-get install chromium}); {@code DemoReportTest} checks the
 * same layout as data without a browser.
 */
class DemoTimelineBrowserTest {
  @TempDir Path dir;

  /** Measures the first screen: markers, dead time, the zoom shown. */
  private static final String CHECK =
      String.join(
          "\n",
          "<script>",
          "const r = [...document.querySelectorAll('#overview .marker circle')]",
          "  .map(c => c.getBoundingClientRect());",
          "let overlaps = 0;",
          "for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++) {",
          "  const a = r[i], b = r[j];",
          "  if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)"
              + " overlaps++;",
          "}",
          "const outside = r.filter(c => c.left < 0 || c.right > window.innerWidth",
          "  || c.top < 0 || c.bottom > window.innerHeight).length;",
          "const dead = document.querySelector('#overview .dead').getBoundingClientRect();",
          "const shown = [...document.querySelectorAll('.zoom')]",
          "  .filter(z => getComputedStyle(z).display !== 'none').length;",
          "const page = document.documentElement.scrollWidth;",
          "const p = document.createElement('pre'); p.id = 'check';",
          "p.textContent = `markers=${r.length} overlaps=${overlaps} outside=${outside}"
              + " dead=${Math.round(dead.width)} shown=${shown} width=${window.innerWidth}"
              + " page=${page}`;",
          "document.body.appendChild(p);",
          "</script>",
          "");

  private static Path chromium() {
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

  @Test
  void firstScreenAt1400px_showsEveryFault_withoutOverlap_andTheDeadTime() throws Exception {
    Path browser = chromium();
    assumeTrue(
        browser != null,
        "chromium is not installed: the browser check of the demo timeline is skipped"
            + " (apt-get install chromium); DemoReportTest checks its layout without a browser");
    String html = DemoReportTest.recordedLikeRun().html().replace("</body>", CHECK + "</body>");
    Path page = dir.resolve("timeline.html");
    Files.writeString(page, html, StandardCharsets.UTF_8);
    Path profile = Files.createDirectory(dir.resolve("profile"));
    Process p =
        new ProcessBuilder(
                browser.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile,
                "--window-size=1400,900",
                "--dump-dom",
                page.toUri().toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String dom = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("chromium ends").isTrue();

    Matcher m =
        Pattern.compile(
                "markers=(\\d+) overlaps=(\\d+) outside=(\\d+) dead=(\\d+) shown=(\\d+)"
                    + " width=(\\d+) page=(\\d+)")
            .matcher(dom);
    assertThat(m.find()).as("the check ran in the page").isTrue();
    assertThat(Integer.parseInt(m.group(6))).as("the window is 1,400 px wide").isEqualTo(1400);
    assertThat(Integer.parseInt(m.group(1))).as("markers").isEqualTo(9);
    assertThat(Integer.parseInt(m.group(2))).as("markers overlapping").isZero();
    assertThat(Integer.parseInt(m.group(3))).as("markers outside the first screen").isZero();
    assertThat(Integer.parseInt(m.group(4))).as("the dead time's width, px").isGreaterThan(100);
    assertThat(Integer.parseInt(m.group(5))).as("one zoom shown, by the page's script").isOne();
    assertThat(Integer.parseInt(m.group(7)))
        .as("the first screen does not scroll sideways")
        .isLessThanOrEqualTo(1400);
  }
}
