package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The documents a reader moves between hold together: every relative link of the README, the docs
 * and the other top-level documents reaches a file that exists, and a link to a heading ({@code
 * guarantees.md#leases-a-maximum-hold}) reaches a heading that exists, named as GitHub names its
 * anchors; the user-facing documents carry no tracker numbers (they mean nothing to a reader); and
 * CI runs the test command that CONTRIBUTING.md gives.
 */
class DocLinksTest {
  private static final Pattern FENCE = Pattern.compile("(?ms)^```.*?^```[^\\n]*$");
  private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern TRACKER =
      Pattern.compile("(?i)\\bissues? #?\\d+|\\bissue-\\d+|\\bissues? \\d+(, \\d+)* and \\d+");

  /** The documents whose links are checked: the docs, and the top-level ones beside them. */
  static List<Path> documents() throws IOException {
    Path root = DocSnippetsTest.repo();
    List<Path> docs = new ArrayList<>(ReadmeCoordinatesTest.documents());
    for (String top : List.of("CONTRIBUTING.md", "RELEASING.md")) {
      if (Files.exists(root.resolve(top))) {
        docs.add(root.resolve(top));
      }
    }
    return docs;
  }

  /** The text without fenced code blocks and code spans, where nothing is a link. */
  static String prose(String markdown) {
    String noFences = FENCE.matcher(markdown).replaceAll("");
    return CODE_SPAN.matcher(noFences).replaceAll("");
  }

  /**
   * The anchors GitHub gives a document's headings: lower case, punctuation other than hyphens and
   * underscores removed, spaces turned into hyphens; a repeated heading gets -1, -2, ...
   */
  static Set<String> anchors(Path doc) throws IOException {
    String text = FENCE.matcher(Files.readString(doc, StandardCharsets.UTF_8)).replaceAll("");
    Set<String> out = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    Matcher m = HEADING.matcher(text);
    while (m.find()) {
      String slug =
          m.group(1)
              .toLowerCase(Locale.ROOT)
              .replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "")
              .replace(' ', '-');
      int n = seen.merge(slug, 1, Integer::sum) - 1;
      out.add(n == 0 ? slug : slug + "-" + n);
    }
    Matcher named = Pattern.compile("<a (?:name|id)=\"([^\"]+)\"").matcher(text);
    while (named.find()) {
      out.add(named.group(1));
    }
    return out;
  }

  private static Set<String> uncheckedAnchors(Path doc) {
    try {
      return anchors(doc);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void everyRelativeLinkOfTheDocs_reachesAFileAndAHeadingThatExist() throws Exception {
    Path root = DocSnippetsTest.repo();
    List<String> broken = new ArrayList<>();
    Map<Path, Set<String>> anchorsOf = new HashMap<>();
    int checked = 0;
    for (Path doc : documents()) {
      String text = prose(Files.readString(doc, StandardCharsets.UTF_8));
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
          continue; // https:, mailto:: not this repository's
        }
        checked++;
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path to = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        String where = root.relativize(doc) + ": (" + target + ")";
        if (!to.startsWith(root) || !Files.exists(to)) {
          broken.add(where + ": no file " + to);
        } else if (anchor != null
            && to.toString().endsWith(".md")
            && !anchorsOf.computeIfAbsent(to, DocLinksTest::uncheckedAnchors).contains(anchor)) {
          broken.add(
              where + ": no heading with the anchor #" + anchor + " in " + root.relativize(to));
        }
      }
    }
    assertThat(checked).as("relative links in the docs").isPositive();
    assertThat(broken).as("links that lead nowhere (a file moved, a heading renamed?)").isEmpty();
  }

  @Test
  void userFacingDocs_carryNoTrackerNumbers() throws Exception {
    Path root = DocSnippetsTest.repo();
    List<String> found = new ArrayList<>();
    for (Path doc : documents()) {
      String name = root.relativize(doc).toString();
      if (name.equals("CHANGELOG.md")) {
        continue; // history
      }
      List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = TRACKER.matcher(lines.get(i));
        if (m.find()) {
          found.add(name + ":" + (i + 1) + ": '" + m.group() + "'");
        }
      }
    }
    assertThat(found)
        .as(
            "tracker numbers mean nothing to a reader: say what the change or the run was"
                + " (history belongs in CHANGELOG.md and the commit log)")
        .isEmpty();
  }

  @Test
  void ci_runsTheTestCommandThatContributingGives() throws Exception {
    Path root = DocSnippetsTest.repo();
    String contributing = Files.readString(root.resolve("CONTRIBUTING.md"), StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("(?m)^(\\./mvnw -B verify)\\s+#").matcher(contributing);
    assertThat(m.find())
        .as("CONTRIBUTING.md gives the test command on a line of its own: ./mvnw -B verify")
        .isTrue();
    List<String> ci = Files.readAllLines(root.resolve(".ci/run"), StandardCharsets.UTF_8);
    assertThat(ci)
        .as(".ci/run runs the test command CONTRIBUTING.md gives, as it is written there")
        .contains(m.group(1));
  }
}
