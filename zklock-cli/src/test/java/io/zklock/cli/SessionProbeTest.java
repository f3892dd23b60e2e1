package io.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How {@code zklock ui} reads ZooKeeper's {@code cons}, and what it says when it cannot ask. */
class SessionProbeTest {
  /** A {@code cons} answer of ZooKeeper 3.9: two sessions, and the asking connection itself. */
  private static final String CONS =
      " /127.0.0.1:54010[1](queued=0,recved=4,sent=4,sid=0x100000b1a0b0000,lop=PING,"
          + "est=1700000000000,to=30000,lcxid=0x1,lzxid=0x5,lresp=123,llat=0,minlat=0,avglat=0,"
          + "maxlat=1)\n"
          + " /127.0.0.1:54011[1](queued=0,recved=9,sent=9,sid=0x100000B1A0B0001,lop=GETD,"
          + "est=1700000000001,to=6000,lcxid=0x3,lzxid=0x9,lresp=124,llat=0,minlat=0,avglat=0,"
          + "maxlat=2)\n"
          + " /127.0.0.1:54012[0](queued=0,recved=1,sent=0)\n\n";

  @Test
  void parse_sessionsWithTheirTimeouts_notTheAskingConnection() {
    Map<Long, Integer> sessions = new HashMap<>();

    SessionProbe.parse(CONS, sessions);

    assertThat(sessions)
        .containsOnly(Map.entry(0x100000b1a0b0000L, 30_000), Map.entry(0x100000b1a0b0001L, 6_000));
  }

  @Test
  void ask_tlsOrNoServer_unknownAndSaysWhy() {
    SessionProbe.Answer tls = new SessionProbe("127.0.0.1:2181", true, 200).ask();
    SessionProbe.Answer none = new SessionProbe("", false, 200).ask();

    assertThat(tls.known()).isFalse();
    assertThat(tls.why()).contains("TLS");
    assertThat(none.known()).isFalse();
    assertThat(none.why()).contains("no server");
  }

  @Test
  void ask_everyServerRefuses_unknown_notAnEnsembleWithoutSessions() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed: nothing listens there now
    }

    SessionProbe.Answer a = new SessionProbe("127.0.0.1:" + port + "/chroot", false, 500).ask();

    assertThat(a.known()).as("no server answered: nothing is known of any session").isFalse();
    assertThat(a.why()).isEqualTo("no server answered");
  }
}
