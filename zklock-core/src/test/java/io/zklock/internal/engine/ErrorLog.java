package io.zklock.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * What zklock's classes log while a test that provokes failures on purpose runs, kept out of the
 * build's output: a field {@code @RegisterExtension final ErrorLog log = new ErrorLog();} captures
 * each test's.
 */
public final class ErrorLog implements BeforeEachCallback, AfterEachCallback {
  private final ListAppender<ILoggingEvent> events = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger("io.zklock");

  @Override
  public void beforeEach(ExtensionContext context) {
    events.start();
    logger.addAppender(events);
    logger.setAdditive(false);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    logger.setAdditive(true);
    logger.detachAppender(events);
  }

  /** The events logged at ERROR so far. */
  public List<ILoggingEvent> errors() {
    return events.list.stream().filter(e -> e.getLevel() == Level.ERROR).toList();
  }

  /** Asserts that each of {@code ts} was logged at ERROR, once, and nothing else was. */
  public void assertLoggedOnceEach(Throwable... ts) {
    List<String> messages =
        errors().stream()
            .map(e -> e.getThrowableProxy() == null ? null : e.getThrowableProxy().getMessage())
            .toList();
    assertThat(messages)
        .as("each throwable logged once, at ERROR")
        .containsExactly(
            java.util.Arrays.stream(ts).map(Throwable::getMessage).toArray(String[]::new));
  }
}
