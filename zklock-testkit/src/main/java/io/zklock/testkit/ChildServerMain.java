package io.zklock.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.ZooKeeperServerMain;

/**
 * The main class of a standalone server of another ZooKeeper release ({@link ChildServer}): runs
 * {@code ZooKeeperServerMain} on a {@code zoo.cfg}, and answers one command on a control port bound
 * to 127.0.0.1, {@code expire <sessionId>}, by closing that session as an expiry does ({@code
 * ZooKeeperServer#closeSession}).
 *
 * <p>It runs on the class path of that release, so it uses only what every release from 3.5 to 3.9
 * has: {@code ZooKeeperServerMain#initializeAndRun}, its private field {@code cnxnFactory} (by
 * reflection), {@code ServerCnxnFactory#getZooKeeperServer} and {@code
 * ZooKeeperServer#closeSession(long)}. Arguments: the control port, the path of {@code zoo.cfg}.
 */
final class ChildServerMain {
  private ChildServerMain() {}

  public static void main(String[] args) {
    try {
      Server server = new Server();
      ServerSocket control =
          new ServerSocket(Integer.parseInt(args[0]), 50, InetAddress.getByName(Ports.LOOPBACK));
      Thread t = new Thread(() -> serve(control, server), "zklock-testkit-control");
      t.setDaemon(true);
      t.start();
      server.run(args[1]);
      System.exit(0);
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(2);
    }
  }

  private static void serve(ServerSocket control, Server server) {
    while (true) {
      try (Socket s = control.accept()) {
        BufferedReader in =
            new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        Writer out = new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8);
        String line = in.readLine();
        String answer;
        try {
          if (line != null && line.startsWith("expire ")) {
            server.zooKeeperServer().closeSession(Long.parseLong(line.substring(7).trim()));
            answer = "ok";
          } else {
            answer = "error: unknown command " + line;
          }
        } catch (RuntimeException | ReflectiveOperationException e) {
          answer = "error: " + e;
        }
        out.write(answer + "\n");
        out.flush();
      } catch (IOException e) {
        // one failed exchange; the next one may work
      }
    }
  }

  /** ZooKeeper's standalone main, kept so that its running server can be found. */
  private static final class Server extends ZooKeeperServerMain {
    void run(String config) throws Exception {
      initializeAndRun(new String[] {config});
    }

    ZooKeeperServer zooKeeperServer() throws ReflectiveOperationException {
      Field f = ZooKeeperServerMain.class.getDeclaredField("cnxnFactory");
      f.setAccessible(true);
      ServerCnxnFactory factory = (ServerCnxnFactory) f.get(this);
      ZooKeeperServer zks = factory == null ? null : factory.getZooKeeperServer();
      if (zks == null) {
        throw new IllegalStateException("the server is not running yet");
      }
      return zks;
    }
  }
}
