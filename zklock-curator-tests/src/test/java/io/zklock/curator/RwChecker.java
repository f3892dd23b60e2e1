package io.zklock.curator;

import java.util.ArrayList;
import java.util.List;

/**
 * The protected resource of the read-write tests: a writer alone, readers together. Records a
 * violation, the order of entries, and whether zklock writers' fencing tokens rose.
 */
final class RwChecker {
  private int readers;
  private String writer;
  private long lastWriteToken = Long.MIN_VALUE;
  private final List<String> entries = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();

  synchronized void enterRead(String who) {
    if (writer != null) {
      problems.add("reader " + who + " entered while writer " + writer + " was inside");
    }
    readers++;
    entries.add(who);
  }

  synchronized void exitRead(String who) {
    readers--;
  }

  /** A writer enters, with its token ({@code -1} for Curator's, which has none). */
  synchronized void enterWrite(String who, long token) {
    if (writer != null || readers > 0) {
      problems.add(
          "writer "
              + who
              + " entered while writer "
              + writer
              + " and "
              + readers
              + " readers were inside");
    }
    if (token >= 0) {
      if (token <= lastWriteToken) {
        problems.add("writer " + who + " entered with token " + token + " after " + lastWriteToken);
      }
      lastWriteToken = token;
    }
    writer = who;
    entries.add(who);
  }

  synchronized void exitWrite(String who) {
    if (!who.equals(writer)) {
      problems.add("writer " + who + " left while " + writer + " was the writer");
    }
    writer = null;
  }

  synchronized List<String> entries() {
    return List.copyOf(entries);
  }

  synchronized List<String> problems() {
    return List.copyOf(problems);
  }
}
