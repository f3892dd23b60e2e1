package io.zklock.spring.integration;

import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * One embedded server per test class and, for each test, two registries on two sessions of it
 * ({@code a} and {@code b}, as two applications would have), closed after the test.
 */
abstract class TwoRegistriesSupport {
  static EmbeddedZooKeeper zk;

  ZkLocks locksA;
  ZkLocks locksB;
  ZkLockRegistry a;
  ZkLockRegistry b;

  @BeforeAll
  static void startServer() {
    zk = EmbeddedZooKeeper.standalone().start();
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  @BeforeEach
  void connect() {
    locksA = ZkLocks.builder(zk.connectString()).clientName("a").build();
    locksB = ZkLocks.builder(zk.connectString()).clientName("b").build();
    a = new ZkLockRegistry(locksA, "si");
    b = new ZkLockRegistry(locksB, "si");
  }

  @AfterEach
  void close() {
    locksA.close();
    locksB.close();
  }
}
