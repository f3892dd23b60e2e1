package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.Test;

/** The ACL rule's pure helpers at their exact values: how an ACL is shown, redacted digests. */
class AclRulesTest {
  private static final Id ALICE = AclRule.digestId("alice:secret");

  @Test
  void perms_eachBitHasItsLetter_inZkClisOrder() {
    assertThat(AclRule.perms(Perms.CREATE)).isEqualTo("c");
    assertThat(AclRule.perms(Perms.DELETE)).isEqualTo("d");
    assertThat(AclRule.perms(Perms.READ)).isEqualTo("r");
    assertThat(AclRule.perms(Perms.WRITE)).isEqualTo("w");
    assertThat(AclRule.perms(Perms.ADMIN)).isEqualTo("a");
    assertThat(AclRule.perms(Perms.ALL)).isEqualTo("cdrwa");
    assertThat(AclRule.perms(0)).isEmpty();
  }

  @Test
  void describe_showsEveryEntryAsZkCliDoes() {
    List<ACL> acl =
        List.of(
            new ACL(Perms.ALL, new Id("world", "anyone")),
            new ACL(Perms.READ | Perms.CREATE, new Id("ip", "127.0.0.1")));
    assertThat(AclRule.describe(acl)).isEqualTo("[world:anyone:cdrwa, ip:127.0.0.1:cr]");
    assertThat(AclRule.describe(List.of())).isEqualTo("[]");
  }

  @Test
  void redacted_onlyForDigestEntriesWhoseHashIsHidden() {
    assertThat(AclRule.redacted(List.of(new ACL(Perms.READ, new Id("digest", "bob:x"))))).isTrue();
    assertThat(AclRule.redacted(List.of(new ACL(Perms.READ, new Id("world", "bob:x"))))).isFalse();
    assertThat(AclRule.redacted(List.of(new ACL(Perms.READ, ALICE)))).isFalse();
    assertThat(AclRule.redacted(List.of())).isFalse();
  }

  @Test
  void redactedOwnUser_isOursOnlyWithoutAdmin_andForOurUserName() {
    Set<Id> own = Set.of(ALICE);
    ACL hiddenAlice = new ACL(Perms.CREATE | Perms.DELETE, new Id("digest", "alice:x"));
    assertThat(AclRule.redactedOwnUser(hiddenAlice, own)).isTrue();
    assertThat(AclRule.redactedOwnUser(new ACL(Perms.ALL, new Id("digest", "alice:x")), own))
        .as("with ADMIN the server would have shown our hash: not ours")
        .isFalse();
    assertThat(AclRule.redactedOwnUser(new ACL(Perms.CREATE, new Id("digest", "alic:x")), own))
        .as("another user whose name is a prefix of ours")
        .isFalse();
    assertThat(AclRule.redactedOwnUser(new ACL(Perms.CREATE, ALICE), own))
        .as("a shown hash is not a redacted one")
        .isFalse();
    assertThat(
            AclRule.redactedOwnUser(
                new ACL(Perms.CREATE, new Id("digest", "alice:x")),
                Set.of(new Id("ip", "alice:1"))))
        .isFalse();
  }

  @Test
  void digestId_isUserColonBase64OfSha1_asZooKeeperComputesIt() {
    // ZooKeeper's DigestAuthenticationProvider.generateDigest("super:test")
    assertThat(AclRule.digestId("super:test").getId())
        .isEqualTo("super:D/InIHSb7yEEbrWz8b9l71RjZJU=");
    assertThat(AclRule.digestId("super:test").getScheme()).isEqualTo("digest");
  }

  @Test
  void ownerData_upTo1024BytesInUtf8() {
    String max = "x".repeat(Args.MAX_OWNER_DATA_BYTES);
    assertThat(Args.ownerData(max)).isSameAs(max);
    assertThat(Args.ownerData("")).isEmpty();
    assertThatThrownBy(() -> Args.ownerData(max + "y"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1025 bytes")
        .hasMessageContaining("1024 allowed")
        .hasMessageContaining("'" + "x".repeat(40) + "...'");
    String wide = "é".repeat(513); // 1026 bytes in UTF-8, 513 chars
    assertThatThrownBy(() -> Args.ownerData(wide)).hasMessageContaining("1026 bytes");
    assertThatThrownBy(() -> Args.ownerData(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be null");
  }
}
