package io.zklock.kotlin

import io.zklock.DistributedLock
import io.zklock.LockHandle
import io.zklock.LockLostException
import io.zklock.LockOptions
import io.zklock.ZkLockException
import io.zklock.ZkLocks
import io.zklock.testkit.EmbeddedZooKeeper
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.onEach
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.apache.zookeeper.KeeperException
import org.apache.zookeeper.ZooKeeper
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.RepeatedTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInfo

/**
 * The coroutine bridge against an embedded ZooKeeper: every guarantee the Java API states, in its
 * suspending form. Two clients ([a], [b]) stand for two processes.
 */
class CoroutineLocksTest {
  companion object {
    private lateinit var zk: EmbeddedZooKeeper
    private val TESTS = AtomicInteger()

    @JvmStatic
    @BeforeAll
    fun startServer() {
      zk = EmbeddedZooKeeper.standalone().start()
    }

    @JvmStatic
    @AfterAll
    fun stopServer() {
      zk.close()
    }
  }

  private lateinit var namespace: String
  private lateinit var a: ZkLocks
  private lateinit var b: ZkLocks
  private lateinit var raw: ZooKeeper

  @BeforeEach
  fun connect(test: TestInfo) {
    namespace = "/kt-" + TESTS.incrementAndGet()
    a = ZkLocks.builder(zk.connectString()).namespace(namespace).clientName("a").build()
    b = ZkLocks.builder(zk.connectString()).namespace(namespace).clientName("b").build()
    raw = ZooKeeper(zk.connectString(), 10_000) {}
  }

  @AfterEach
  fun close() {
    a.close()
    b.close()
    raw.close()
  }

  /** The lock nodes (not directories) under the lock [name]'s directory. */
  private fun nodes(name: String): Int =
      try {
        raw.getChildren("$namespace/$name", false).count { it.contains('-') }
      } catch (e: KeeperException.NoNodeException) {
        0
      }

  private fun awaitNodes(name: String, n: Int) {
    await().atMost(20, TimeUnit.SECONDS).until { nodes(name) == n }
  }

  // ----------------------------------------------------------------------------------- acquire

  @Test
  fun awaitAcquire_grants_thenReleaseFromAnotherDispatcher_letsTheOtherProcessIn() = runBlocking {
    val held = withContext(Dispatchers.Default) { a.mutex("m").awaitAcquire() }
    assertThat(held.isHeld).isTrue()
    assertThat(b.mutex("m").tryAcquire(Duration.ZERO)).`as`("excluded").isNull()

    withContext(Dispatchers.IO) { held.awaitRelease() } // another dispatcher, another thread

    assertThat(held.isHeld).isFalse()
    val next = b.mutex("m").tryAcquire(Duration.ZERO)
    assertThat(next).isNotNull()
    next!!.awaitRelease()
    awaitNodes("m", 0)
  }

  @Test
  fun awaitAcquire_heldAcrossSuspensionsAndDispatchers_byTheHandleNotAThread() = runBlocking {
    val lock = a.mutex("hop")
    lock.withLock { held ->
      val threads = mutableSetOf<String>()
      for (d in listOf(Dispatchers.Default, Dispatchers.IO, Dispatchers.Default)) {
        withContext(d) {
          threads += Thread.currentThread().name
          yield()
          assertThat(held.isHeld).isTrue()
        }
      }
      assertThat(b.mutex("hop").tryAcquire(Duration.ZERO)).isNull()
    }
    assertThat(nodes("hop")).isZero()
  }

  // ------------------------------------------------------------------------------ cancellation

  @Test
  fun cancellation_whileWaiting_withdrawsTheRequest_leavesNoNode() = runBlocking {
    val holder = b.mutex("c").awaitAcquire()
    val waiter = launch(Dispatchers.Default) { a.mutex("c").awaitAcquire() }
    awaitNodes("c", 2) // the waiter's request is queued

    waiter.cancelAndJoin()

    awaitNodes("c", 1) // withdrawn: only the holder's node is left
    holder.awaitRelease()
    awaitNodes("c", 0)
    assertThat(a.mutex("c").tryAcquire(Duration.ZERO)).`as`("nothing left in the way").isNotNull()
  }

  @RepeatedTest(20)
  fun cancellation_racingTheGrant_neverLeaksAHold_norANode() = runBlocking {
    val holder = b.mutex("race").awaitAcquire()
    val granted = CompletableDeferred<LockHandle>()
    val waiter =
        launch(Dispatchers.Default, start = CoroutineStart.UNDISPATCHED) {
          granted.complete(a.mutex("race").awaitAcquire())
        }
    awaitNodes("race", 2)

    // the release hands the lock to the waiter while the waiter is being cancelled
    val release = launch(Dispatchers.IO) { holder.awaitRelease() }
    waiter.cancelAndJoin()
    release.join()

    if (granted.isCompleted) {
      granted.await().awaitRelease() // it won the race and returned: it is the caller's to release
    }
    awaitNodes("race", 0)
    val again = b.mutex("race").tryAcquire(5.seconds)
    assertThat(again).`as`("the lock is free: no hold leaked").isNotNull()
    again!!.awaitRelease()
  }

  // ---------------------------------------------------------------------------------- timeouts

  @Test
  fun tryAcquire_timeoutElapses_returnsNull_leavesNoNode() = runBlocking {
    val holder = b.mutex("t").awaitAcquire()
    val start = System.nanoTime()

    val got = a.mutex("t").tryAcquire(300.milliseconds)

    assertThat(got).isNull()
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(300.milliseconds.inWholeNanoseconds)
    awaitNodes("t", 1)
    holder.awaitRelease()
  }

  @Test
  fun tryAcquire_freeLock_grantsAtOnce_andZeroTimeoutNeverWaits() = runBlocking {
    val free = a.mutex("z").tryAcquire(5.seconds)
    assertThat(free).isNotNull()
    val start = System.nanoTime()
    assertThat(b.mutex("z").tryAcquire(Duration.ZERO)).isNull()
    assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5))
    free!!.awaitRelease()
    awaitNodes("z", 0)
  }

  @Test
  fun tryAcquire_negativeTimeout_rejected() = runBlocking {
    assertThatThrownBy { runBlocking { a.mutex("n").tryAcquire((-1).seconds) } }
        .isInstanceOf(IllegalArgumentException::class.java)
    Unit
  }

  @Test
  fun tryAcquire_timeoutOnTheTestsVirtualClock_withdrawsTheRequest() = runTest {
    val holder = withContext(Dispatchers.IO) { b.mutex("v").awaitAcquire() }
    // virtual time: the 10 minutes pass as soon as the test's scheduler is idle
    val got = a.mutex("v").tryAcquire(10.seconds * 60)
    assertThat(got).isNull()
    withContext(Dispatchers.IO) {
      awaitNodes("v", 1)
      holder.awaitRelease()
    }
  }

  // ---------------------------------------------------------------------------------- withLock

  @Test
  fun withLock_releasesOnException() = runBlocking {
    assertThatThrownBy { runBlocking { a.mutex("e").withLock { error("boom") } } }
        .hasMessage("boom")
    assertThat(nodes("e")).isZero()
    assertThat(b.mutex("e").tryAcquire(Duration.ZERO)).isNotNull().satisfies({ it!!.release() })
    Unit
  }

  @Test
  fun withLock_releasesOnCancellation() = runBlocking {
    val inside = CompletableDeferred<Unit>()
    val job =
        launch(Dispatchers.Default) {
          a.mutex("k").withLock {
            inside.complete(Unit)
            kotlinx.coroutines.awaitCancellation()
          }
        }
    inside.await()
    assertThat(nodes("k")).isEqualTo(1)
    job.cancelAndJoin()
    assertThat(nodes("k")).`as`("released before the cancelled coroutine completed").isZero()
  }

  @Test
  fun withLock_mutualExclusion_acrossProcessesAndCoroutines() = runBlocking {
    val inside = AtomicInteger()
    var overlaps = 0
    coroutineScope {
      (0 until 8)
          .map { i ->
            async(Dispatchers.Default) {
              val locks = if (i % 2 == 0) a else b
              repeat(5) {
                locks.mutex("x").withLock {
                  if (inside.incrementAndGet() > 1) overlaps++
                  yield()
                  inside.decrementAndGet()
                }
              }
            }
          }
          .awaitAll()
    }
    assertThat(overlaps).isZero()
    assertThat(nodes("x")).isZero()
  }

  // --------------------------------------------------------------------------- every lock kind

  @Test
  fun everyKind_withLock_excludesAsItsKindSays() = runBlocking {
    val kinds: List<Pair<String, (ZkLocks) -> DistributedLock>> =
        listOf(
            "mutex" to { l -> l.mutex("kinds/mutex") },
            "simple" to { l -> l.simpleLock("kinds/simple") },
            "write" to { l -> l.readWriteLock("kinds/rw").writeLock() },
            "cohort" to { l -> l.mutex("kinds/cohort", LockOptions.cohort()) },
            "multi" to { l -> l.multiLock(l.mutex("kinds/m1"), l.mutex("kinds/m2")) },
        )
    for ((kind, make) in kinds) {
      make(a).withLock { held ->
        assertThat(held.isHeld).`as`(kind).isTrue()
        assertThat(make(b).tryAcquire(Duration.ZERO)).`as`("$kind excludes").isNull()
      }
      val after = make(b).tryAcquire(5.seconds)
      assertThat(after).`as`("$kind released").isNotNull()
      after!!.awaitRelease()
    }
  }

  @Test
  fun readWriteLock_readersShare_aWriterWaitsForThem() = runBlocking {
    val rwA = a.readWriteLock("rw")
    val rwB = b.readWriteLock("rw")
    rwA.readLock().withLock {
      val otherReader = rwB.readLock().tryAcquire(5.seconds)
      assertThat(otherReader).`as`("readers share").isNotNull()
      assertThat(rwB.writeLock().tryAcquire(Duration.ZERO)).`as`("a writer waits").isNull()
      otherReader!!.awaitRelease()
    }
    rwB.writeLock().withLock { assertThat(rwA.readLock().tryAcquire(Duration.ZERO)).isNull() }
  }

  @Test
  fun semaphore_withLease_twoPermits_aThirdWaits() = runBlocking {
    val one = a.semaphore("sem", 2).awaitAcquire()
    b.semaphore("sem", 2).withLease { lease ->
      assertThat(lease.isHeld).isTrue()
      assertThat(a.semaphore("sem", 2).tryAcquire(200.milliseconds)).`as`("both permits out").isNull()
    }
    val third = a.semaphore("sem", 2).tryAcquire(5.seconds)
    assertThat(third).`as`("a permit back").isNotNull()
    third!!.awaitRelease()
    one.awaitRelease()
  }

  // ------------------------------------------------------------------------------------- loss

  @Test
  fun loss_awaitLoss_andTheLossFlow_tellTheSessionExpiry() = runBlocking {
    val held = a.mutex("lost").awaitAcquire()
    val viaFlow = async(Dispatchers.Default) { held.loss().first() }
    val viaSuspend = async(Dispatchers.Default) { held.awaitLoss() }

    zk.expireSession(a.sessionId())

    val loss = withTimeout(20.seconds) { viaSuspend.await() }
    assertThat(loss.reason()).isEqualTo(LockLostException.Reason.SESSION_EXPIRED)
    assertThat(withTimeout(20.seconds) { viaFlow.await() }.reason())
        .isEqualTo(LockLostException.Reason.SESSION_EXPIRED)
    assertThat(held.isHeld).isFalse()
  }

  @Test
  fun loss_withLockWhileHeld_cancelsTheCriticalSection_andThrowsTheLoss() = runBlocking {
    val inside = CompletableDeferred<Unit>()
    val section =
        async(Dispatchers.Default) {
          runCatching {
            a.mutex("guarded").withLockWhileHeld {
              inside.complete(Unit)
              kotlinx.coroutines.awaitCancellation()
            }
          }
        }
    inside.await()
    zk.expireSession(a.sessionId())

    val outcome = withTimeout(20.seconds) { section.await() }
    assertThat(outcome.exceptionOrNull())
        .isInstanceOf(LockLostException::class.java)
        .hasMessageContaining("expired")
  }

  @Test
  fun closedZkLocks_failsTheWaiter_withZkLockException() = runBlocking {
    val holder = b.mutex("closed").awaitAcquire()
    val waiter = async(Dispatchers.Default) { runCatching { a.mutex("closed").awaitAcquire() } }
    awaitNodes("closed", 2)
    a.close()
    assertThat(withTimeout(20.seconds) { waiter.await() }.exceptionOrNull())
        .isInstanceOf(ZkLockException::class.java)
    holder.awaitRelease()
  }

  // --------------------------------------------------------------------------------- election

  @Test
  fun election_awaitLeadership_andTheLeadershipFlow() = runBlocking {
    a.leaderElection("lead", "p-a").use { first ->
      b.leaderElection("lead", "p-b").use { second ->
        first.start()
        val epoch = withTimeout(20.seconds) { first.awaitLeadership() }
        assertThat(first.isLeader).isTrue()
        second.start()
        val next = async(Dispatchers.Default) { second.awaitLeadership() }
        val watching = CompletableDeferred<Unit>()
        val revoked =
            async(Dispatchers.Default) {
              first
                  .leadership()
                  .onEach { if (it is Leadership.Elected) watching.complete(Unit) }
                  .first { it is Leadership.Revoked }
            }
        watching.await() // a leader's flow starts with Elected: the listener is in place
        first.close()
        assertThat(withTimeout(20.seconds) { revoked.await() }.epoch).isEqualTo(epoch)
        assertThat(withTimeout(20.seconds) { next.await() }).isGreaterThan(epoch)
      }
    }
  }
}
