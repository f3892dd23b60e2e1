package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.Map;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * {@link ErrorKind}, the one classifier of ZooKeeper's result codes: the whole table, code by code,
 * so that a code ZooKeeper adds (or one moved between kinds) is a decision made here, in words.
 */
class ErrorKindRulesTest {

  /** Every code that is not {@link ErrorKind#FINAL}. */
  private static final Map<Code, ErrorKind> NOT_FINAL =
      Map.of(
          Code.CONNECTIONLOSS, ErrorKind.RETRY_WHEN_CONNECTED,
          Code.OPERATIONTIMEOUT, ErrorKind.RETRY_WHEN_CONNECTED,
          Code.SESSIONMOVED, ErrorKind.RETRY_WHEN_CONNECTED,
          Code.SESSIONEXPIRED, ErrorKind.SESSION_ENDED);

  @Test
  void theTable_everyCode() {
    Map<Code, ErrorKind> actual = new EnumMap<>(Code.class);
    for (Code c : Code.values()) {
      actual.put(c, ErrorKind.of(c));
    }
    Map<Code, ErrorKind> expected = new EnumMap<>(Code.class);
    for (Code c : Code.values()) {
      expected.put(c, NOT_FINAL.getOrDefault(c, ErrorKind.FINAL));
    }
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void connectionLossAndTimeout_retryWhenConnected_theRequestMayOrMayNotHaveBeenApplied() {
    assertThat(ErrorKind.of(Code.CONNECTIONLOSS)).isEqualTo(ErrorKind.RETRY_WHEN_CONNECTED);
    assertThat(ErrorKind.of(Code.OPERATIONTIMEOUT)).isEqualTo(ErrorKind.RETRY_WHEN_CONNECTED);
  }

  @Test
  void sessionMoved_retriesWhenConnected_theSessionLivesOnAnotherServer() {
    assertThat(ErrorKind.of(Code.SESSIONMOVED)).isEqualTo(ErrorKind.RETRY_WHEN_CONNECTED);
    assertThat(ErrorKind.retryWhenConnected(Code.SESSIONMOVED)).isTrue();
  }

  @Test
  void sessionExpired_isTheSessionsNews_notARetryOnThisSession() {
    assertThat(ErrorKind.of(Code.SESSIONEXPIRED)).isEqualTo(ErrorKind.SESSION_ENDED);
    assertThat(ErrorKind.retryWhenConnected(Code.SESSIONEXPIRED)).isFalse();
    assertThat(ErrorKind.retryable(Code.SESSIONEXPIRED)).isTrue();
  }

  @Test
  void answersTheCallersHandle_areFinal() {
    for (Code c :
        new Code[] {
          Code.OK,
          Code.NONODE,
          Code.NODEEXISTS,
          Code.BADVERSION,
          Code.NOAUTH,
          Code.NOTEMPTY,
          Code.NOWATCHER,
          Code.AUTHFAILED,
          Code.INVALIDACL,
          Code.UNIMPLEMENTED
        }) {
      assertThat(ErrorKind.of(c)).as("%s", c).isEqualTo(ErrorKind.FINAL);
      assertThat(ErrorKind.retryable(c)).as("%s", c).isFalse();
      assertThat(ErrorKind.retryWhenConnected(c)).as("%s", c).isFalse();
    }
  }

  @Test
  void theTwoShorthands_agreeWithTheTable() {
    for (Code c : Code.values()) {
      ErrorKind k = ErrorKind.of(c);
      assertThat(ErrorKind.retryWhenConnected(c))
          .as("%s", c)
          .isEqualTo(k == ErrorKind.RETRY_WHEN_CONNECTED);
      assertThat(ErrorKind.retryable(c)).as("%s", c).isEqualTo(k != ErrorKind.FINAL);
    }
  }
}
