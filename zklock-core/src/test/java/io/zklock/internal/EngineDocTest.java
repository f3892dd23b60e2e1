package io.zklock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/engine.md's table of packages is drawn from the code: each package of {@code
 * io.zklock.internal} has its row, each row names every class of its package (a top-level class, as
 * {@code `Name`} or {@code `Name.Member`}), and every class a row names is a class of that package
 * or of the API ({@code io.zklock}). A class added, moved, renamed or removed fails this test until
 * the table says so.
 */
class EngineDocTest {
  private static final Path DOC = Path.of("..", "docs", "engine.md");
  private static final Path SOURCES = Path.of("src", "main", "java", "io", "zklock", "internal");

  /** A row of the table: | `package` | what is in it |. */
  private static final Pattern ROW = Pattern.compile("^\\| `([a-z]+)` \\| (.*) \\|$");

  /** A class named in a row: `Name` or `Name.Member` (names of methods, modes and paths aside). */
  private static final Pattern CLASS = Pattern.compile("`([A-Z][A-Za-z0-9]*)(?:\\.[A-Za-z0-9]+)*`");

  @Test
  void packageTable_namesEveryClassOfEveryPackage_andNothingElse() throws IOException {
    Map<String, Set<String>> documented = table();
    Map<String, Set<String>> code = code();

    assertThat(documented.keySet())
        .as("the packages in docs/engine.md's table, against io.zklock.internal's")
        .containsExactlyInAnyOrderElementsOf(code.keySet());
    Set<String> api = classesIn(SOURCES.getParent());
    for (Map.Entry<String, Set<String>> pkg : code.entrySet()) {
      Set<String> row = new TreeSet<>(documented.get(pkg.getKey()));
      assertThat(row)
          .as("docs/engine.md's row `%s` names every class of the package", pkg.getKey())
          .containsAll(pkg.getValue());
      row.removeAll(pkg.getValue());
      row.removeAll(api);
      assertThat(row)
          .as(
              "names in docs/engine.md's row `%s` that are no class of the package (nor of the"
                  + " API): moved, renamed or removed",
              pkg.getKey())
          .isEmpty();
    }
  }

  private static Map<String, Set<String>> table() throws IOException {
    Map<String, Set<String>> rows = new LinkedHashMap<>();
    boolean inSection = false;
    for (String line : Files.readAllLines(DOC)) {
      if (line.startsWith("## ")) {
        inSection = line.equals("## The packages");
        continue;
      }
      Matcher m = ROW.matcher(line);
      if (inSection && m.matches()) {
        Set<String> names = new TreeSet<>();
        Matcher c = CLASS.matcher(m.group(2));
        while (c.find()) {
          names.add(c.group(1));
        }
        rows.put(m.group(1), names);
      }
    }
    assertThat(rows).as("the table under '## The packages' in %s", DOC).isNotEmpty();
    return rows;
  }

  private static Map<String, Set<String>> code() throws IOException {
    Map<String, Set<String>> packages = new LinkedHashMap<>();
    packages.put("internal", classesIn(SOURCES));
    try (Stream<Path> dirs = Files.list(SOURCES)) {
      for (Path dir : dirs.filter(Files::isDirectory).collect(Collectors.toList())) {
        packages.put(dir.getFileName().toString(), classesIn(dir));
      }
    }
    return packages;
  }

  private static Set<String> classesIn(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".java") && !n.equals("package-info.java"))
          .map(n -> n.substring(0, n.length() - ".java".length()))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
