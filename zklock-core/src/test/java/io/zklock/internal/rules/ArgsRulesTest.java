package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The public API's argument checks, {@link Args}: every refusal names the bad value, and every
 * boundary lies where the javadoc puts it (one step inside is accepted, one step outside refused).
 */
class ArgsRulesTest {

  // ------------------------------------------------------------------------ connect string

  @Test
  void connectString_validForms_acceptedAndTrimmed() {
    assertThat(Args.connectString(" h:2181 ")).isEqualTo("h:2181");
    assertThat(Args.connectString("h")).isEqualTo("h");
    assertThat(Args.connectString("a:1,b:65535")).isEqualTo("a:1,b:65535");
    assertThat(Args.connectString("a:1,b:2/app/locks")).isEqualTo("a:1,b:2/app/locks");
    assertThat(Args.connectString("a:1/")).isEqualTo("a:1/");
    assertThat(Args.connectString("[::1]:2181")).isEqualTo("[::1]:2181");
  }

  @Test
  void connectString_null_namesTheArgument() {
    assertThatThrownBy(() -> Args.connectString(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("connectString");
  }

  @Test
  void connectString_emptyOrBlank_refused() {
    assertThatThrownBy(() -> Args.connectString("   "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("connect string must not be empty");
  }

  @Test
  void connectString_badChroot_refusedNamingTheStringAndTheCause() {
    assertThatThrownBy(() -> Args.connectString("h:1/a//b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("connect string 'h:1/a//b' has a bad chroot: empty path segment")
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Args.connectString("h:1/zookeeper"))
        .hasMessageContaining("bad chroot: 'zookeeper' is reserved");
  }

  @Test
  void connectString_chrootWithoutHosts_refused() {
    assertThatThrownBy(() -> Args.connectString("/app"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("connect string '/app' has an empty host in ''");
    assertThatThrownBy(() -> Args.connectString("/a//b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("connect string '/a//b' has a bad chroot: empty path segment");
  }

  @Test
  void connectString_emptyHost_refused() {
    assertThatThrownBy(() -> Args.connectString("a:1,,b:2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("connect string 'a:1,,b:2' has an empty host in 'a:1,,b:2'");
    assertThatThrownBy(() -> Args.connectString(":2181/x"))
        .hasMessage("connect string ':2181/x' has an empty host in ':2181'");
    assertThatThrownBy(() -> Args.connectString("a:1,")).hasMessageContaining("has an empty host");
  }

  @Test
  void connectString_badOrOutOfRangePort_refusedNamingThePort() {
    assertThatThrownBy(() -> Args.connectString("h:21x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("connect string 'h:21x' has a bad port '21x'")
        .hasCauseInstanceOf(NumberFormatException.class);
    assertThatThrownBy(() -> Args.connectString("h:0"))
        .hasMessage("connect string 'h:0' has a port out of range: 0");
    assertThatThrownBy(() -> Args.connectString("h:65536"))
        .hasMessage("connect string 'h:65536' has a port out of range: 65536");
  }

  // ----------------------------------------------------------------------------- namespace

  @Test
  void namespace_normalised() {
    assertThat(Args.namespace("/")).isEqualTo("");
    assertThat(Args.namespace("/zklock")).isEqualTo("/zklock");
    assertThat(Args.namespace("/a/b/")).isEqualTo("/a/b");
    assertThat(Args.namespace("/zookeeperish")).isEqualTo("/zookeeperish");
  }

  @Test
  void namespace_refusals_nameTheValue() {
    assertThatThrownBy(() -> Args.namespace(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("namespace");
    assertThatThrownBy(() -> Args.namespace("zklock"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("namespace must be an absolute ZooKeeper path starting with '/': 'zklock'");
    assertThatThrownBy(() -> Args.namespace("/a//b"))
        .hasMessage("bad namespace '/a//b': empty path segment")
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Args.namespace("/a/../b"))
        .hasMessage("bad namespace '/a/../b': relative segment '..'");
    assertThatThrownBy(() -> Args.namespace("/a/./b"))
        .hasMessage("bad namespace '/a/./b': relative segment '.'");
    assertThatThrownBy(() -> Args.namespace("/zookeeper/x"))
        .hasMessageContaining("'zookeeper' is reserved by ZooKeeper");
  }

  // ----------------------------------------------------------------------------- lock name

  @Test
  void lockName_longestAccepted_oneMoreRefused() {
    String longest = "a".repeat(Args.MAX_NAME_LENGTH);
    assertThat(Args.lockName(longest)).isSameAs(longest);
    assertThatThrownBy(() -> Args.lockName(longest + "b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "lock name is 513 characters long, more than the limit of 512: '"
                + "a".repeat(40)
                + "...'");
  }

  @Test
  void lockName_refusals() {
    assertThat(Args.lockName("orders/42")).isEqualTo("orders/42");
    assertThatThrownBy(() -> Args.lockName(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("lock name");
    assertThatThrownBy(() -> Args.lockName(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lock name must not be empty");
    assertThatThrownBy(() -> Args.lockName("/orders"))
        .hasMessage("lock name must be relative to the namespace, not start with '/': '/orders'");
    assertThatThrownBy(() -> Args.lockName("a/"))
        .hasMessage("bad lock name 'a/': empty path segment")
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Args.lockName("zookeeper"))
        .hasMessage("bad lock name 'zookeeper': 'zookeeper' is reserved by ZooKeeper");
    assertThat(Args.lockName("a/zookeeper")).isEqualTo("a/zookeeper");
  }

  @Test
  void lockName_controlCharacter_refusedPrintablyWithItsIndexInTheName() {
    assertThatThrownBy(() -> Args.lockName("ab\u0001"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bad lock name 'ab\\u0001': invalid character \\u0001 at index 2");
  }

  @Test
  void lockName_characterRanges_boundariesExact() {
    char[] refused = {
      '\u0000', '\u001f', '\u007f', '\u0080', '\u009f', '\ud800', '\ue000', '\uf8ff', '\ufff0',
      '\uffff'
    };
    for (char c : refused) {
      assertThatThrownBy(() -> Args.lockName("x" + c))
          .as("\\u%04x", (int) c)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageEndingWith(String.format("invalid character \\u%04x at index 1", (int) c));
    }
    char[] accepted = {' ', '~', '\u00a0', '\ud7ff', '\uf900', '\uffef'};
    for (char c : accepted) {
      assertThat(Args.lockName("x" + c)).as("\\u%04x", (int) c).isEqualTo("x" + c);
    }
  }

  // -------------------------------------------------------------- client name, participant id

  @Test
  void clientName_limits() {
    assertThat(Args.clientName("w-1")).isEqualTo("w-1");
    String longest = "c".repeat(256);
    assertThat(Args.clientName(longest)).isSameAs(longest);
    assertThatThrownBy(() -> Args.clientName(longest + "c"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("client name is longer than 256 characters: 'ccc");
    assertThatThrownBy(() -> Args.clientName(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("clientName");
    assertThatThrownBy(() -> Args.clientName(" \t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("client name must not be blank");
    assertThatThrownBy(() -> Args.clientName("a\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("client name has a control character at index 1: 'a\\u000ab'");
    assertThatThrownBy(() -> Args.clientName("\u007f")).hasMessageContaining("at index 0");
  }

  @Test
  void participantId_limits() {
    assertThat(Args.participantId("node-7")).isEqualTo("node-7");
    String longest = "p".repeat(256);
    assertThat(Args.participantId(longest)).isSameAs(longest);
    assertThatThrownBy(() -> Args.participantId(longest + "p"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("participant id is longer than 256 characters: '" + "p".repeat(40) + "...'");
    assertThatThrownBy(() -> Args.participantId(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("participantId");
    assertThatThrownBy(() -> Args.participantId("  "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("participant id must not be blank: '  '");
    assertThatThrownBy(() -> Args.participantId("n\u0000"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("participant id has a control character at index 1: 'n\\u0000'");
  }

  // ------------------------------------------------------------------------------ durations

  @Test
  void positiveMillis_boundaries() {
    Duration longest = Duration.ofMillis(Integer.MAX_VALUE);
    assertThat(Args.positiveMillis(longest, "session timeout")).isSameAs(longest);
    assertThat(Args.positiveMillis(Duration.ofMillis(1), "t")).isEqualTo(Duration.ofMillis(1));
    assertThatThrownBy(() -> Args.positiveMillis(longest.plusNanos(1), "session timeout"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("session timeout is too large (at most ~24 days): PT");
    assertThatThrownBy(() -> Args.positiveMillis(Duration.ZERO, "session timeout"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("session timeout must be positive: PT0S");
    assertThatThrownBy(() -> Args.positiveMillis(Duration.ofMillis(-1), "connect timeout"))
        .hasMessage("connect timeout must be positive: PT-0.001S");
    assertThatThrownBy(() -> Args.positiveMillis(Duration.ofNanos(999_999), "tick"))
        .hasMessage("tick must be at least 1 ms: PT0.000999999S");
    assertThatThrownBy(() -> Args.positiveMillis(null, "tick"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("tick");
  }

  @Test
  void timeoutNanos_zeroMeansNoWait_negativeAndHugeRefused() {
    assertThat(Args.timeoutNanos(Duration.ZERO)).isZero();
    assertThat(Args.timeoutNanos(Duration.ofSeconds(2))).isEqualTo(2_000_000_000L);
    assertThat(Args.timeoutNanos(Duration.ofNanos(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> Args.timeoutNanos(Duration.ofNanos(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must not be negative: PT-0.000000001S");
    assertThatThrownBy(() -> Args.timeoutNanos(Duration.ofDays(365L * 300)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("timeout is too large (at most ~292 years): PT")
        .hasCauseInstanceOf(ArithmeticException.class);
    assertThatThrownBy(() -> Args.timeoutNanos(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("timeout");
  }
}
