package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.zookeeper.common.PathUtils;

/**
 * Lock names follow ZooKeeper's own path rules exactly: a name is accepted if and only if
 * ZooKeeper's {@code PathUtils.validatePath} accepts the path it makes under the namespace, within
 * the length limit, and, under the root namespace only, outside the reserved {@code /zookeeper}.
 */
class ArgsPropertiesTest {

  /** Pieces of names: ordinary, structural, reserved, and each boundary of the refused ranges. */
  private static final List<String> PIECES =
      List.of(
          "a",
          "7",
          "/",
          ".",
          "..",
          "...",
          "zookeeper",
          "\u0000",
          "\u001f",
          " ",
          "~",
          "\u007f",
          "\u009f",
          "\u00a0",
          "\u00e9",
          "\ud7ff",
          "\ud83d\ude00", // an emoji: a surrogate pair
          "\ud83d", // a lone high surrogate
          "\ude00", // a lone low surrogate
          "\ue000",
          "\uf8ff",
          "\uf900",
          "\uffef",
          "\ufff0",
          "\uffff",
          "x".repeat(300));

  @Provide
  Arbitrary<String> names() {
    return Arbitraries.of(PIECES)
        .list()
        .ofMinSize(0)
        .ofMaxSize(8)
        .map(pieces -> String.join("", pieces));
  }

  private static boolean zooKeeperAccepts(String path) {
    try {
      PathUtils.validatePath(path);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static boolean accepted(String namespace, String name) {
    try {
      assertThat(Args.lockName(namespace, name)).isSameAs(name);
      return true;
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).as("a refusal names the problem").isNotBlank();
      return false;
    }
  }

  @Property(tries = 2000)
  void underANamespace_acceptedExactlyWhenZooKeeperAcceptsThePath(@ForAll("names") String name) {
    boolean expected = zooKeeperAccepts("/zklock/" + name) && name.length() <= Args.MAX_NAME_LENGTH;

    assertThat(accepted("/zklock", name)).as("'%s'", name).isEqualTo(expected);
  }

  @Property(tries = 2000)
  void underTheRoot_alsoOutsideTheReservedZookeeperTree(@ForAll("names") String name) {
    String path = "/" + name;
    boolean reserved = path.equals("/zookeeper") || path.startsWith("/zookeeper/");
    boolean expected =
        !name.isEmpty()
            && zooKeeperAccepts(path)
            && name.length() <= Args.MAX_NAME_LENGTH
            && !reserved;

    assertThat(accepted("", name)).as("'%s'", name).isEqualTo(expected);
  }

  @Provide
  Arbitrary<String> pieces() {
    return Arbitraries.of(PIECES);
  }

  @Property
  void aRefusedCharacter_isNamedByItsCodePoint(@ForAll("pieces") String piece) {
    String name = "job-" + piece + "-1";
    if (piece.chars().noneMatch(c -> Args.refusedByZooKeeper((char) c))) {
      return;
    }
    String message;
    try {
      Args.lockName(name);
      throw new AssertionError("accepted '" + name + "'");
    } catch (IllegalArgumentException e) {
      message = e.getMessage();
    }
    assertThat(message.substring(message.indexOf("invalid character")))
        .as("the character is named by its code point, not a UTF-16 escape")
        .matches("invalid character U\\+[0-9A-F]{4,6}.* at index 4")
        .doesNotContain("\\u");
  }
}
