package io.zklock.testkit.junit;

import java.nio.file.Path;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * A JUnit Jupiter extension that adds a dump of every thread to a test (or lifecycle method) that
 * failed by its time-out: the dump is attached to the failure as a suppressed exception, so the
 * test report shows it under the failure, and is also printed to standard error and written to
 * {@code target/thread-dumps/}.
 *
 * <p>Meant with a default time-out in the {@code SEPARATE_THREAD} mode, where JUnit fails the test
 * as soon as the time is up, whether or not it answers an interrupt, while the test's own thread is
 * still where it hung (JUnit puts that thread's stack in the failure's cause): the dump shows every
 * other thread at that moment. In {@code junit-platform.properties}:
 *
 * <pre>
 * junit.jupiter.execution.timeout.default = 60 s
 * junit.jupiter.execution.timeout.thread.mode.default = SEPARATE_THREAD
 * junit.jupiter.extensions.autodetection.enabled = true
 * </pre>
 *
 * The last line lets JUnit find this extension by its service declaration in this jar; without it
 * the extension is inert, or register it with {@code @ExtendWith(TimeoutThreadDump.class)}.
 */
public final class TimeoutThreadDump
    implements TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler {

  /** A thread dump carried by a failure; it has no stack of its own. */
  public static final class ThreadDumpAtTimeout extends Exception {
    private static final long serialVersionUID = 1L;

    ThreadDumpAtTimeout(String test, String dump) {
      super("every thread when " + test + " timed out:\n" + dump, null, false, false);
    }
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withDump(context, throwable);
  }

  @Override
  public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withDump(context, throwable);
  }

  @Override
  public void handleBeforeEachMethodExecutionException(
      ExtensionContext context, Throwable throwable) throws Throwable {
    throw withDump(context, throwable);
  }

  @Override
  public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withDump(context, throwable);
  }

  @Override
  public void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable throwable)
      throws Throwable {
    throw withDump(context, throwable);
  }

  /** Whether {@code t} is JUnit's time-out failure. */
  static boolean isTimeout(Throwable t) {
    return t instanceof TimeoutException
        && t.getMessage() != null
        && t.getMessage().contains("timed out after");
  }

  private static Throwable withDump(ExtensionContext context, Throwable throwable) {
    if (!isTimeout(throwable)) {
      return throwable;
    }
    String test =
        context.getTestClass().map(Class::getName).orElse(context.getDisplayName())
            + context.getTestMethod().map(m -> "#" + m.getName()).orElse("");
    String dump = ThreadDumps.all();
    Path file = ThreadDumps.write(test, dump);
    System.err.println(
        "[zklock-testkit] "
            + test
            + ": "
            + throwable.getMessage()
            + "; thread dump follows"
            + (file == null ? "" : " (also in " + file + ")")
            + "\n"
            + dump);
    throwable.addSuppressed(new ThreadDumpAtTimeout(test, dump));
    return throwable;
  }
}
