package io.zklock.soak;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An append-only event log file. Each event is written with one {@code write(2)} as soon as it is
 * made, without a user-space buffer, so a process killed with SIGKILL loses no event it has logged
 * (the kernel keeps what was written).
 */
public final class EventLog implements AutoCloseable {
  private final FileOutputStream out;
  private final List<Event> memory;
  private boolean closed;

  /**
   * @param keepInMemory also keep the events in a list ({@link #events()}), for the orchestrator
   */
  public EventLog(Path file, boolean keepInMemory) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      this.out = new FileOutputStream(file.toFile(), true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open event log " + file, e);
    }
    this.memory = keepInMemory ? new ArrayList<>() : null;
  }

  /** Stamps and writes an event now; returns it. */
  public synchronized Event log(String ev, Object... keyValues) {
    Event e = Event.of(System.nanoTime(), ev, keyValues);
    write(e);
    return e;
  }

  /** Writes an event already stamped; after {@link #close()}, drops it. */
  public synchronized void write(Event e) {
    if (closed) {
      return; // a late listener call after the client closed its log
    }
    try {
      out.write((e.format() + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot write event log", ex);
    }
    if (memory != null) {
      memory.add(e);
    }
  }

  /** A copy of the events written so far (only with {@code keepInMemory}). */
  public synchronized List<Event> events() {
    return memory == null ? List.of() : new ArrayList<>(memory);
  }

  /** Reads every event of a log file; a torn last line is skipped. */
  public static List<Event> read(Path file) {
    List<Event> events = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        Event e = Event.parse(line);
        if (e != null) {
          events.add(e);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read event log " + file, e);
    }
    return events;
  }

  @Override
  public synchronized void close() {
    closed = true;
    try {
      out.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
