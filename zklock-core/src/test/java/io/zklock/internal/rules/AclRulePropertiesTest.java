package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.zklock.internal.zk.Dirs;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

/** The ACL rule of {@link Dirs}, {@link AclRule}: who else may write a directory. */
class AclRulePropertiesTest {
  private static final Id ALICE = AclRule.digestId("alice:secret");
  private static final Id BOB = AclRule.digestId("bob:pw");
  private static final Id SASL_ALICE = new Id("sasl", "alice@EXAMPLE");
  private static final Id WORLD = Ids.ANYONE_ID_UNSAFE;
  private static final Id IP = new Id("ip", "127.0.0.1");
  private static final Id AUTH = new Id("auth", "");
  private static final Set<Id> OWN = Set.of(ALICE, SASL_ALICE);

  /** The default configured ACL: creator all, world read. */
  private static final List<ACL> CREATOR_ALL_WORLD_READ =
      List.of(new ACL(Perms.ALL, Ids.AUTH_IDS), new ACL(Perms.READ, WORLD));

  @Provide
  Arbitrary<ACL> anyEntry() {
    return Combinators.combine(
            Arbitraries.of(ALICE, BOB, SASL_ALICE, WORLD, IP, AUTH),
            Arbitraries.integers().between(0, 31))
        .as((id, perms) -> new ACL(perms, id));
  }

  @Provide
  Arbitrary<List<ACL>> anyAcl() {
    return anyEntry().list().ofMaxSize(6);
  }

  private static boolean foreign(Id id) {
    return !OWN.contains(id);
  }

  @Property
  void shared_exactlyWhenSomeoneElseHasAWriteRight_andWeMayCreate(@ForAll("anyAcl") List<ACL> acl) {
    boolean othersWrite =
        acl.stream().anyMatch(a -> foreign(a.getId()) && (a.getPerms() & AclRule.WRITES) != 0);
    boolean weCreate =
        acl.stream()
            .anyMatch(
                a ->
                    (a.getPerms() & Perms.CREATE) != 0
                        && (OWN.contains(a.getId())
                            || a.getId().equals(WORLD)
                            || a.getId().equals(IP)));
    AclRule.Verdict v = AclRule.judge(acl, OWN, CREATOR_ALL_WORLD_READ);
    if (!weCreate) {
      assertThat(v).isEqualTo(AclRule.Verdict.CANNOT_CREATE);
    } else {
      assertThat(v).isEqualTo(othersWrite ? AclRule.Verdict.SHARED : AclRule.Verdict.OWN);
    }
  }

  @Property
  void readOnlyEntries_neverChangeTheVerdict(
      @ForAll("anyAcl") List<ACL> acl, @ForAll("anyEntry") ACL extra) {
    List<ACL> more = new ArrayList<>(acl);
    more.add(new ACL(extra.getPerms() & Perms.READ, extra.getId()));
    assertThat(AclRule.judge(more, OWN, CREATOR_ALL_WORLD_READ))
        .isEqualTo(AclRule.judge(acl, OWN, CREATOR_ALL_WORLD_READ));
  }

  @Property
  void aForeignWriteRight_neverMakesADirectoryOwn(
      @ForAll("anyAcl") List<ACL> acl, @ForAll("anyEntry") ACL extra) {
    if (!foreign(extra.getId()) || (extra.getPerms() & AclRule.WRITES) == 0) {
      return;
    }
    List<ACL> more = new ArrayList<>(acl);
    more.add(extra);
    assertThat(AclRule.judge(more, OWN, CREATOR_ALL_WORLD_READ)).isNotEqualTo(AclRule.Verdict.OWN);
  }

  @Property
  void whatTheConfiguredAclGrants_isNotForeign(@ForAll("anyAcl") List<ACL> acl) {
    // a client that itself creates open nodes shares with the world by choice
    assertThat(AclRule.foreignWriters(acl, OWN, Ids.OPEN_ACL_UNSAFE))
        .allMatch(a -> !a.getId().equals(WORLD));
  }

  @Example
  void openDirectory_isShared_andDescribedAsZkCliPrintsIt() {
    assertThat(AclRule.judge(Ids.OPEN_ACL_UNSAFE, OWN, CREATOR_ALL_WORLD_READ))
        .isEqualTo(AclRule.Verdict.SHARED);
    assertThat(AclRule.describe(Ids.OPEN_ACL_UNSAFE)).isEqualTo("[world:anyone:cdrwa]");
  }

  @Example
  void hiddenDigestOfOurUser_withoutAdmin_mayBeOursButIsNotSafe() {
    ACL hidden = new ACL(Perms.CREATE | Perms.DELETE, new Id("digest", "alice:x"));
    ACL bob = new ACL(Perms.CREATE | Perms.DELETE, new Id("digest", "bob:x"));
    assertThat(AclRule.judge(List.of(hidden, bob), OWN, CREATOR_ALL_WORLD_READ))
        .isEqualTo(AclRule.Verdict.SHARED);
    ACL hiddenAdmin = new ACL(Perms.ALL, new Id("digest", "alice:x"));
    assertThat(AclRule.judge(List.of(hiddenAdmin), OWN, CREATOR_ALL_WORLD_READ))
        .as("with ADMIN it would not be hidden from us: someone else's alice")
        .isEqualTo(AclRule.Verdict.CANNOT_CREATE);
  }

  @Example
  void digestId_isWhatZooKeeperComputes() throws Exception {
    assertThat(AclRule.digestId("alice:secret").getId())
        .isEqualTo(
            org.apache.zookeeper.server.auth.DigestAuthenticationProvider.generateDigest(
                "alice:secret"));
  }
}
