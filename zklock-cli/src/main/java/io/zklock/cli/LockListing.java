package io.zklock.cli;

import io.zklock.LockInfo;
import io.zklock.LockNode;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code zklock ls} shows: the locks the library's inspection API reports ({@link
 * io.zklock.ZkLocks#inspectAll}), holders then waiters, each in queue order, as text or JSON.
 */
final class LockListing {
  final String namespace;
  final List<LockInfo> locks;
  final long takenMillis;

  LockListing(String namespace, List<LockInfo> locks, long takenMillis) {
    this.namespace = namespace;
    this.locks = List.copyOf(locks);
    this.takenMillis = takenMillis;
  }

  /** One row: a node and whether it holds. */
  private record Row(LockNode node, boolean holds) {}

  private static List<Row> rows(LockInfo lock) {
    List<Row> rows = new ArrayList<>();
    lock.holders().forEach(n -> rows.add(new Row(n, true)));
    lock.waiters().forEach(n -> rows.add(new Row(n, false)));
    return rows;
  }

  private static String lockLabel(LockInfo lock) {
    return lock.kind() == LockInfo.Kind.SEMAPHORE
        ? lock.name() + " (" + lock.permits() + (lock.permits() == 1 ? " permit)" : " permits)")
        : lock.name();
  }

  private static String state(Row r) {
    if (!r.holds()) {
      return waiting(r.node());
    }
    return r.node().releaseRequested() ? "holds (release requested)" : "holds";
  }

  /**
   * A waiter's state: {@code admitted} for a semaphore request let in by its admission queue and
   * waiting for a permit, else {@code waits}.
   */
  static String waiting(LockNode n) {
    return n.state() == LockNode.State.ADMITTED ? "admitted" : "waits";
  }

  /** The state field of a lock whose directory mixes recipes ({@link LockInfo#state()}). */
  static final String MIX = "mix";

  /**
   * The state field of a lock whose directory holds other libraries' lock nodes ({@link
   * LockInfo#state()}): their likely libraries.
   */
  static final String FOREIGN = "foreign";

  /** Whether {@code lock} is a coordination recipe's entry: no queue, a state instead. */
  static boolean coordination(LockInfo lock) {
    return switch (lock.kind()) {
      case LATCH, BARRIER, DOUBLE_BARRIER, CONDITION -> true;
      default -> false;
    };
  }

  /** The KIND column of a coordination entry. */
  static String kindLabel(LockInfo lock) {
    return lock.kind().name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The STATE column of a coordination entry, from {@link LockInfo#state()}. */
  static String summary(LockInfo lock) {
    var st = lock.state();
    return switch (lock.kind()) {
      case LATCH ->
          "true".equals(st.get("open"))
              ? "open"
              : "closed, " + st.get("remaining") + " of " + st.get("count") + " left";
      case BARRIER -> "set";
      case DOUBLE_BARRIER ->
          "round "
              + st.get("round")
              + ", "
              + st.get("entered")
              + " of "
              + st.get("members")
              + " entered"
              + ("open".equals(st.get("phase")) ? ", open" : "");
      case CONDITION ->
          st.get("waiting")
              + " waiting on condition "
              + st.get("condition")
              + " of "
              + st.get("lock");
      default -> "";
    };
  }

  private static String orUnknown(String s) {
    return s == null || s.isEmpty() ? "?" : s;
  }

  /** Whether {@code n} is a participant whose id the CLIENT column does not show. */
  private static boolean hiddenParticipant(LockNode n) {
    return n.participantId().filter(id -> !id.equals(n.clientName())).isPresent();
  }

  private static String session(LockNode n) {
    return "0x" + Long.toHexString(n.sessionId());
  }

  // ------------------------------------------------------------------ rendering

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

  String text() {
    if (locks.isEmpty()) {
      return "no locks under " + namespace + "\n";
    }
    boolean anyData =
        locks.stream()
            .flatMap(l -> rows(l).stream())
            .anyMatch(r -> !r.node().ownerData().isEmpty());
    // an election participant whose id is not its client name: show the id too
    boolean anyParticipant =
        locks.stream().flatMap(l -> rows(l).stream()).anyMatch(r -> hiddenParticipant(r.node()));
    List<String[]> table = new ArrayList<>();
    List<String> header =
        new ArrayList<>(
            List.of(
                "LOCK", "#", "STATE", "KIND", "CLIENT", "HOST", "PID", "SESSION", "SINCE",
                "TOKEN"));
    if (anyParticipant) {
      header.add(header.indexOf("CLIENT") + 1, "PARTICIPANT");
    }
    if (anyData) {
      header.add("DATA");
    }
    table.add(header.toArray(new String[0]));
    for (LockInfo lock : locks) {
      if (coordination(lock)) {
        List<String> row = new ArrayList<>();
        row.add(lock.name());
        row.add("");
        row.add(summary(lock));
        row.add(kindLabel(lock));
        while (row.size() < header.size()) {
          row.add("");
        }
        table.add(row.toArray(new String[0]));
        continue;
      }
      int pos = 0;
      for (Row r : rows(lock)) {
        LockNode n = r.node();
        List<String> row =
            new ArrayList<>(
                List.of(
                    pos == 0 ? lockLabel(lock) : "",
                    Integer.toString(pos),
                    state(r),
                    n.kind().label(),
                    orUnknown(n.clientName()),
                    orUnknown(n.host()),
                    n.pid() > 0 ? Long.toString(n.pid()) : "?",
                    session(n),
                    since(n.since()),
                    Long.toString(n.fencingToken())));
        if (anyParticipant) {
          row.add(5, n.participantId().orElse("")); // after CLIENT
        }
        if (anyData) {
          row.add(n.ownerData());
        }
        table.add(row.toArray(new String[0]));
        pos++;
      }
    }
    int[] width = new int[header.size()];
    for (String[] r : table) {
      for (int c = 0; c < r.length; c++) {
        width[c] = Math.max(width[c], r[c].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] r : table) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < r.length; c++) {
        line.append(String.format(Locale.ROOT, "%-" + width[c] + "s", r[c]));
        if (c < r.length - 1) {
          line.append("  ");
        }
      }
      sb.append(line.toString().stripTrailing()).append('\n');
    }
    for (LockInfo lock : locks) {
      String mix = coordination(lock) ? null : lock.state().get(MIX);
      if (mix != null) {
        sb.append(
            String.format(
                Locale.ROOT,
                "mixed recipes at %s: %s; their clients order the queue differently, and the"
                    + " holders shown are zklock's reading (%s)%n",
                lock.name(),
                mix.replace(",", ", "),
                mix.contains("kazoo") || mix.contains("go-lock")
                    ? "docs/interop.md"
                    : "docs/migrating-from-curator.md"));
      }
      String foreign = coordination(lock) ? null : lock.state().get(FOREIGN);
      if (foreign != null) {
        sb.append(
            String.format(
                Locale.ROOT,
                "other libraries' lock nodes at %s: %s (likely); they do not queue behind"
                    + " zklock's, so zklock refuses to queue there (docs/guarantees.md)%n",
                lock.name(),
                foreign.replace(",", ", ")));
      }
    }
    long held = locks.stream().filter(LockInfo::isHeld).count();
    long waiting = locks.stream().mapToLong(l -> l.waiters().size()).sum();
    long others = locks.stream().filter(LockListing::coordination).count();
    sb.append(
        String.format(
            Locale.ROOT,
            "%d lock(s) under %s, %d held, %d waiting%s%n",
            locks.size() - others,
            namespace,
            held,
            waiting,
            others == 0
                ? ""
                : String.format(
                    Locale.ROOT,
                    "; %d latch, barrier or condition entr%s",
                    others,
                    others == 1 ? "y" : "ies")));
    return sb.toString();
  }

  private String since(Instant at) {
    String time = TIME.format(LocalDateTime.ofInstant(at, ZoneId.systemDefault()));
    long age = Math.max(0, takenMillis - at.toEpochMilli());
    return time + " (" + Durations.format(Duration.ofMillis(age)) + ")";
  }

  String json() {
    StringBuilder sb = new StringBuilder();
    sb.append("{\"namespace\":").append(quote(namespace));
    sb.append(",\"time\":").append(quote(Instant.ofEpochMilli(takenMillis).toString()));
    sb.append(",\"locks\":[");
    for (int l = 0; l < locks.size(); l++) {
      LockInfo lock = locks.get(l);
      if (l > 0) {
        sb.append(',');
      }
      sb.append("{\"name\":").append(quote(lock.name()));
      sb.append(",\"path\":").append(quote(lock.path()));
      sb.append(",\"kind\":").append(quote(lock.kind().name().toLowerCase(Locale.ROOT)));
      if (lock.kind() == LockInfo.Kind.SEMAPHORE) {
        sb.append(",\"permits\":").append(lock.permits());
      }
      if (!lock.state().isEmpty()) {
        // a coordination entry's fields, or a lock's mix of recipes, in a fixed order
        sb.append(",\"state\":{");
        List<String> keys = new ArrayList<>(lock.state().keySet());
        java.util.Collections.sort(keys);
        for (int k = 0; k < keys.size(); k++) {
          if (k > 0) {
            sb.append(',');
          }
          sb.append(quote(keys.get(k))).append(':').append(quote(lock.state().get(keys.get(k))));
        }
        sb.append('}');
      }
      sb.append(",\"queue\":[");
      List<Row> rows = rows(lock);
      for (int i = 0; i < rows.size(); i++) {
        LockNode e = rows.get(i).node();
        if (i > 0) {
          sb.append(',');
        }
        sb.append("{\"node\":").append(quote(e.name()));
        sb.append(",\"kind\":").append(quote(e.kind().label()));
        sb.append(",\"state\":")
            .append(quote(rows.get(i).holds() ? "holds" : waiting(rows.get(i).node())));
        sb.append(",\"client\":").append(quote(orUnknown(e.clientName())));
        sb.append(",\"participant\":")
            .append(e.participantId().map(LockListing::quote).orElse("null"));
        sb.append(",\"host\":").append(quote(orUnknown(e.host())));
        sb.append(",\"pid\":").append(e.pid() > 0 ? Long.toString(e.pid()) : "null");
        sb.append(",\"session\":").append(quote(session(e)));
        sb.append(",\"since\":").append(quote(e.since().toString()));
        sb.append(",\"token\":").append(e.fencingToken());
        sb.append(",\"releaseRequested\":").append(e.releaseRequested());
        sb.append(",\"data\":").append(quote(e.ownerData()));
        sb.append('}');
      }
      sb.append("]}");
    }
    sb.append("]}");
    return sb.toString();
  }

  /** A JSON string literal. */
  static String quote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
