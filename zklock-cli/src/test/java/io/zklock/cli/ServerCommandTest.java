package io.zklock.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ServerCommandTest {

  @Test
  void standalone_printsConnectString_servesClients_stopsWhenAsked() throws Exception {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    AtomicInteger exit = new AtomicInteger(-1);
    Thread server = new Thread(() -> exit.set(cl.execute("server", "--port", "0")));
    server.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> out.toString().contains("\n"));
    String connect = out.toString().strip();
    assertThat(connect).matches("127\\.0\\.0\\.1:\\d+");

    Cli.Result ls = Cli.run("ls", "--connect", connect);
    assertThat(ls.exitCode()).as(ls.toString()).isZero();
    assertThat(ls.out()).contains("no locks under /zklock");

    ServerCommand command = cl.getSubcommands().get("server").getCommand();
    command.stop.countDown(); // what Ctrl-C does
    server.join(30_000);
    assertThat(exit.get()).isZero();
    assertThat(err.toString()).contains("server stopped, data deleted");
    Cli.Result after = Cli.run("ls", "--connect", connect, "--connect-timeout", "300ms");
    assertThat(after.exitCode()).isEqualTo(ExitCodes.CANNOT_CONNECT);
  }

  /**
   * A program that starts the server with a pipe to its stdin: the pipe's end (the program closed
   * it, or ended, even by SIGKILL, and the kernel closed it) stops the server as Ctrl-C does.
   */
  @Test
  void untilStdinCloses_theEndOfStdinStopsTheServer() throws Exception {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    ServerCommand command = cl.getSubcommands().get("server").getCommand();
    PipedOutputStream parent = new PipedOutputStream();
    command.stdin = new PipedInputStream(parent);
    AtomicInteger exit = new AtomicInteger(-1);
    Thread server =
        new Thread(() -> exit.set(cl.execute("server", "--port", "0", "--until-stdin-closes")));
    server.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> out.toString().contains("\n"));
    String connect = out.toString().strip();
    parent.write("anything the parent writes is read and ignored\n".getBytes(UTF_8));
    parent.flush();
    assertThat(Cli.run("ls", "--connect", connect).exitCode())
        .as("serving while stdin is open")
        .isZero();

    parent.close();

    server.join(30_000);
    assertThat(server.isAlive()).as("stopped once stdin ended").isFalse();
    assertThat(exit.get()).isZero();
    assertThat(err.toString()).contains("server stopped, data deleted");
  }

  @Test
  void portWithAnEnsemble_isAUsageError() {
    Cli.Result r = Cli.run("server", "--servers", "3", "--port", "2181");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("--port applies to a standalone server only");
  }
}
