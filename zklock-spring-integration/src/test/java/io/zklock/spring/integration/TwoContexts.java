package io.zklock.spring.integration;

import io.zklock.ZkLocks;
import java.util.List;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Two Spring application contexts on one ensemble, as two processes would be: each has its own
 * {@link ZkLocks} (its own session), a {@link ZkLockRegistry} and, if asked, a {@link
 * LockRegistryLeaderInitiator} on that registry.
 */
final class TwoContexts implements AutoCloseable {
  private final List<GenericApplicationContext> contexts;

  TwoContexts(String connectString, boolean leaderInitiator) {
    this.contexts =
        List.of(
            context(connectString, "ctx-a", leaderInitiator),
            context(connectString, "ctx-b", leaderInitiator));
  }

  private static GenericApplicationContext context(
      String connectString, String name, boolean leaderInitiator) {
    GenericApplicationContext ctx = new GenericApplicationContext();
    ctx.registerBean(
        ZkLocks.class,
        () -> ZkLocks.builder(connectString).clientName(name).build(),
        bd -> bd.setDestroyMethodName("close"));
    ctx.registerBean(
        ZkLockRegistry.class, () -> new ZkLockRegistry(ctx.getBean(ZkLocks.class), "leaders"));
    if (leaderInitiator) {
      ctx.registerBean(
          LockRegistryLeaderInitiator.class,
          () -> {
            LockRegistryLeaderInitiator initiator =
                new LockRegistryLeaderInitiator(
                    ctx.getBean(ZkLockRegistry.class), new DefaultCandidate(name, "scheduler"));
            initiator.setHeartBeatMillis(200);
            initiator.setBusyWaitMillis(50);
            return initiator;
          });
    }
    ctx.refresh();
    return ctx;
  }

  List<ZkLockRegistry> registries() {
    return contexts.stream().map(c -> c.getBean(ZkLockRegistry.class)).toList();
  }

  ZkLocks locks(int i) {
    return contexts.get(i).getBean(ZkLocks.class);
  }

  boolean isLeader(int i) {
    return contexts.get(i).getBean(LockRegistryLeaderInitiator.class).getContext().isLeader();
  }

  int leaders() {
    return (isLeader(0) ? 1 : 0) + (isLeader(1) ? 1 : 0);
  }

  @Override
  public void close() {
    contexts.forEach(GenericApplicationContext::close);
  }
}
