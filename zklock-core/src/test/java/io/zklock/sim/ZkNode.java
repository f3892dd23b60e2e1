package io.zklock.sim;

import io.zklock.LockEvent;
import io.zklock.LockEventListener;
import io.zklock.SuspensionPolicy;
import io.zklock.ZkLocks;
import io.zklock.internal.ZkLocksFactory;
import io.zklock.internal.rules.RandomIds;
import io.zklock.internal.zk.LibraryThreads;
import io.zklock.internal.zk.Platform;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A zklock client process of the simulation: the real {@link ZkLocks} (session, engine, recipes)
 * built on the process's clock, its simulated pool, the simulated ensemble's clients and seeded
 * ids. Built with {@code connectInBackground()}, as building must not block the world's thread.
 */
final class ZkNode {
  final String name;
  final SimProcess process;
  final ZkLocks locks;
  final long sessionTimeoutNanos;
  final List<SimZkClient> handles = new ArrayList<>();

  /** Told of every grant one of its requests got (the granted node's path). */
  java.util.function.Consumer<String> onGrant = p -> {};

  /** Told of every answer any of its handles receives. */
  java.util.function.BiConsumer<Req, Integer> onAnswer = (r, rc) -> {};

  /** Told of every request any of its handles sends. */
  java.util.function.BiConsumer<SimZkClient, Req> onSend = (c, r) -> {};

  ZkNode(
      SimWorld w,
      String name,
      SimProcess process,
      int sessionTimeoutMs,
      SuspensionPolicy policy,
      Consumer<LockEvent> events) {
    this.name = name;
    this.process = process;
    this.sessionTimeoutNanos = sessionTimeoutMs * Sim.MS;
    StringBuilder connect = new StringBuilder();
    for (int i = 0; i < w.ens.servers.length; i++) {
      connect.append(i == 0 ? "" : ",").append("s").append(i).append(":2181");
    }
    ZkLocksFactory f = new ZkLocksFactory(connect.toString());
    f.sessionTimeout(Duration.ofMillis(sessionTimeoutMs));
    f.connectTimeout(Duration.ofMillis(sessionTimeoutMs));
    f.clientName(name);
    f.suspensionPolicy(policy);
    f.connectInBackground();
    f.batching(w.batched);
    f.eventListener(
        new LockEventListener() {
          @Override
          public void onEvent(LockEvent event) {
            events.accept(event);
          }

          @Override
          public boolean isNonBlocking() {
            return true;
          }
        });
    Platform platform =
        new Platform(
            process.clock,
            process::wallMillis,
            new SimConnector(
                process,
                w.ens,
                w.net,
                zk -> {
                  handles.add(zk);
                  zk.onSend = (c, r) -> onSend.accept(c, r);
                  zk.onAnswer = (r, rc) -> onAnswer.accept(r, rc);
                }),
            () ->
                new SimPool(
                    process,
                    LibraryThreads.THREADS,
                    task ->
                        WorldWaiter.around(w.sim, () -> LibraryThreads.runAsLibraryThread(task))),
            (threadName, work) -> {
              work.run(); // at once: closing a simulated client never blocks
              process.maybeDescheduleAfterStarting(threadName);
            },
            RandomIds.seeded(process.rnd.nextLong()));
    this.locks = f.build(platform);
  }

  /** The handle in use (the last opened). */
  SimZkClient current() {
    return handles.isEmpty() ? null : handles.get(handles.size() - 1);
  }

  @Override
  public String toString() {
    return name;
  }
}
