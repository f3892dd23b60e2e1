package io.zklock.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zklock.NodeAcl;
import io.zklock.NodeAcl.Entry;
import io.zklock.NodeAcl.Permission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooDefs.Perms;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.Test;

/**
 * {@link NodeAcl}, zklock's own ACL type, and its conversion to ZooKeeper's ({@link
 * AclRule#toZooKeeper}): each factory gives exactly the ZooKeeper ACL zklock used to create nodes
 * with, each permission its bit, and a custom list keeps its entries in order.
 */
class NodeAclRulesTest {

  @Test
  void factories_convertToTheAclsZooKeeperNames() {
    assertThat(AclRule.toZooKeeper(NodeAcl.open())).isEqualTo(ZooDefs.Ids.OPEN_ACL_UNSAFE);
    assertThat(AclRule.toZooKeeper(NodeAcl.creatorOnly())).isEqualTo(ZooDefs.Ids.CREATOR_ALL_ACL);
    assertThat(AclRule.toZooKeeper(NodeAcl.creatorAllWorldRead()))
        .containsExactly(
            ZooDefs.Ids.CREATOR_ALL_ACL.get(0),
            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
  }

  @Test
  void eachPermission_isItsBit_andAllOfThemAreAll() {
    assertThat(AclRule.bits(EnumSet.of(Permission.READ))).isEqualTo(Perms.READ);
    assertThat(AclRule.bits(EnumSet.of(Permission.WRITE))).isEqualTo(Perms.WRITE);
    assertThat(AclRule.bits(EnumSet.of(Permission.CREATE))).isEqualTo(Perms.CREATE);
    assertThat(AclRule.bits(EnumSet.of(Permission.DELETE))).isEqualTo(Perms.DELETE);
    assertThat(AclRule.bits(EnumSet.of(Permission.ADMIN))).isEqualTo(Perms.ADMIN);
    assertThat(AclRule.bits(EnumSet.allOf(Permission.class))).isEqualTo(Perms.ALL);
    assertThat(AclRule.bits(EnumSet.of(Permission.CREATE, Permission.DELETE)))
        .isEqualTo(Perms.CREATE | Perms.DELETE);
  }

  @Test
  void customList_keepsItsEntriesInOrder_andConvertsEachOne() {
    NodeAcl acl =
        NodeAcl.of(
            Entry.of("digest", "alice:hash=", Permission.values()),
            Entry.of("ip", "10.0.0.0/8", Permission.READ, Permission.CREATE),
            Entry.anyone(Permission.READ));

    assertThat(AclRule.toZooKeeper(acl))
        .containsExactly(
            new ACL(Perms.ALL, new Id("digest", "alice:hash=")),
            new ACL(Perms.READ | Perms.CREATE, new Id("ip", "10.0.0.0/8")),
            new ACL(Perms.READ, new Id("world", "anyone")));
    assertThat(acl.toString())
        .isEqualTo("custom [digest:alice:hash=:cdrwa, ip:10.0.0.0/8:cr, world:anyone:r]");
    assertThat(acl.needsAuthentication()).isFalse();
  }

  @Test
  void theConvertedList_answersContainsNull_asZooKeeperAsks() {
    List<ACL> converted = AclRule.toZooKeeper(NodeAcl.open());
    assertThat(converted.contains(null)).isFalse();
    assertThatThrownBy(() -> converted.add(null)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void needsAuthentication_exactlyWhenAnEntryNamesTheCreator() {
    assertThat(NodeAcl.creatorAllWorldRead().needsAuthentication()).isTrue();
    assertThat(NodeAcl.creatorOnly().needsAuthentication()).isTrue();
    assertThat(NodeAcl.open().needsAuthentication()).isFalse();
    assertThat(NodeAcl.of(Entry.creator(Permission.READ)).needsAuthentication()).isTrue();
    assertThat(NodeAcl.of(Entry.anyone(Permission.READ)).needsAuthentication()).isFalse();
  }

  @Test
  void badEntriesAndLists_areRefused_namingTheProblem() {
    assertThatThrownBy(() -> Entry.of("world", "anyone"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("world:anyone");
    assertThatThrownBy(() -> Entry.of(" ", "x", Permission.READ))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("scheme");
    assertThatThrownBy(() -> NodeAcl.of(List.of())).isInstanceOf(IllegalArgumentException.class);
    List<Entry> withNull = new ArrayList<>();
    withNull.add(null);
    assertThatThrownBy(() -> NodeAcl.of(withNull)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void entries_areImmutableCopies() {
    Set<Permission> perms = EnumSet.of(Permission.READ);
    Entry e = new Entry("world", "anyone", perms);
    perms.add(Permission.WRITE);
    assertThat(e.permissions()).containsExactly(Permission.READ);
    assertThatThrownBy(() -> e.permissions().add(Permission.ADMIN))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> NodeAcl.open().entries().add(e))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(Entry.of("world", "anyone", Permission.READ, Permission.READ).permissions())
        .containsExactly(Permission.READ);
  }
}
