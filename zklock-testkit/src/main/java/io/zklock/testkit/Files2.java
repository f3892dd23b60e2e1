package io.zklock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directories. */
final class Files2 {
  private Files2() {}

  static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
  }

  /**
   * Deletes a directory tree, best effort: retries a few times in case a server thread that is
   * shutting down still writes into it; a file that cannot be deleted is left behind.
   */
  static void deleteQuietly(Path dir) {
    for (int attempt = 0; attempt < 5 && dir != null && Files.exists(dir); attempt++) {
      deleteOnce(dir);
    }
  }

  private static void deleteOnce(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException ignored) {
                  // best effort
                }
              });
    } catch (IOException ignored) {
      // best effort
    }
  }
}
