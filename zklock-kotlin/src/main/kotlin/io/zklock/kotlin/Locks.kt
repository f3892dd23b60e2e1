/*
 * zklock for Kotlin coroutines.
 *
 * A zklock grant belongs to its [LockHandle], not to a thread, so it may be held across
 * suspension points and released from any dispatcher. These extensions suspend instead of
 * blocking a thread:
 *
 * ```kotlin
 * val lock = zkLocks.mutex("orders/42")
 * lock.withLock { held ->
 *     ledger.write(entry, held.fencingToken())   // may suspend, hop dispatchers
 * }
 * val h = lock.tryAcquire(2.seconds) ?: return   // null on timeout
 * ```
 *
 * Every lock kind is a [DistributedLock] (mutex, either side of a read-write lock, simple lock,
 * multi-lock, cohort mutex) or a [DistributedSemaphore] (whose handles are leases): each has
 * [awaitAcquire], [tryAcquire] and [withLock].
 *
 * **Cancellation.** Cancelling a coroutine that waits for a lock withdraws its request, as
 * cancelling [DistributedLock.acquireAsync]'s future does: its node is deleted (also across a
 * connection loss) and waiters behind it are not held up. A grant that races the cancellation is
 * released, never leaked: a cancelled acquisition never returns a handle and never leaves a lock
 * held.
 */
@file:JvmName("ZkLocksCoroutines")

package io.zklock.kotlin

import io.zklock.DistributedLock
import io.zklock.DistributedSemaphore
import io.zklock.LockHandle
import io.zklock.LockLostException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.ExecutionException
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlin.time.Duration
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.launch
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout

// ------------------------------------------------------------------------------ DistributedLock

/**
 * Acquires the lock, suspending as long as it takes; the suspending form of
 * [DistributedLock.acquire]. A connection loss or a session expiry does not end the wait (after an
 * expiry the request queues again on the new session).
 *
 * Cancellation of the calling coroutine withdraws the request and leaves no node; a grant that
 * races it is released.
 *
 * @throws io.zklock.ZkLockException as [DistributedLock.acquireAsync]'s future fails: the
 *   `ZkLocks` is closed, the server refuses the request (ACL), or (connecting in the background)
 *   no server answered within the connect timeout
 */
suspend fun DistributedLock.awaitAcquire(): LockHandle = acquireAsync().awaitGrant()

/**
 * Acquires the lock if it becomes free within [timeout], suspending meanwhile; `null` if the
 * timeout elapsed first, and then no node is left behind. A zero timeout asks once and never waits
 * for a holder, as [DistributedLock.tryAcquire]. The timeout is measured by the coroutine's
 * dispatcher (virtual time under `kotlinx-coroutines-test`).
 *
 * @throws IllegalArgumentException if [timeout] is negative
 * @throws io.zklock.ZkLockException as [awaitAcquire]; with a zero timeout, as
 *   [DistributedLock.tryAcquire] (also when the session is not connected now)
 */
suspend fun DistributedLock.tryAcquire(timeout: Duration): LockHandle? =
    tryWithin(timeout, { tryAcquire().orElse(null) }) { acquireAsync() }

/**
 * Runs [action] holding the lock and releases it after, when [action] returns, throws or is
 * cancelled. The release waits for the server's acknowledgement, and is not cancellable.
 */
suspend inline fun <T> DistributedLock.withLock(action: (LockHandle) -> T): T {
  val held = awaitAcquire()
  try {
    return action(held)
  } finally {
    withContext(NonCancellable) { held.awaitRelease() }
  }
}

/**
 * Runs [action] holding the lock, as [withLock], and cancels it if the lock is lost meanwhile
 * (session expired, node deleted, lease run out): this then throws the [LockLostException]. Use it
 * where a critical section must not go on once others may hold the lock. A loss can only be
 * known when this process hears of it: fencing tokens still protect a resource from a holder that
 * learns late (see zklock's `docs/guarantees.md`).
 */
suspend fun <T> DistributedLock.withLockWhileHeld(action: suspend (LockHandle) -> T): T =
    withLock { held -> whileHeld(held, action) }

// -------------------------------------------------------------------------- DistributedSemaphore

/** Acquires one lease, suspending as long as it takes; as [DistributedLock.awaitAcquire]. */
suspend fun DistributedSemaphore.awaitAcquire(): LockHandle = acquireAsync().awaitGrant()

/** Acquires [permits] permits as one lease, suspending as long as it takes. */
suspend fun DistributedSemaphore.awaitAcquire(permits: Int): LockHandle =
    acquireAsync(permits).awaitGrant()

/** Acquires one lease if one is free within [timeout]; as [DistributedLock.tryAcquire]. */
suspend fun DistributedSemaphore.tryAcquire(timeout: Duration): LockHandle? =
    tryWithin(timeout, { tryAcquire().orElse(null) }) { acquireAsync() }

/** Runs [action] holding one lease and releases it after; as [DistributedLock.withLock]. */
suspend inline fun <T> DistributedSemaphore.withLease(action: (LockHandle) -> T): T {
  val held = awaitAcquire()
  try {
    return action(held)
  } finally {
    withContext(NonCancellable) { held.awaitRelease() }
  }
}

// ------------------------------------------------------------------------------------ LockHandle

/**
 * Releases the grant and suspends until the server has acknowledged the deletion, from any
 * dispatcher; the suspending form of [LockHandle.release]. Idempotent. Cancelling the wait does not
 * stop the release: the deletion is guaranteed, as [LockHandle.releaseAsync] says.
 *
 * @throws io.zklock.ZkLockException if the server refuses the deletion (the handle is released all
 *   the same)
 */
suspend fun LockHandle.awaitRelease() {
  releaseAsync().awaitUncancelled()
}

/**
 * Suspends until the lock is lost while held (session expired, node deleted by someone else,
 * suspended under `TREAT_AS_LOST`, `ZkLocks` closed, lease run out) and returns the loss; the
 * suspending form of [LockHandle.lost]. It never returns if the handle is released first.
 * Cancelling the wait leaves the handle as it is.
 */
suspend fun LockHandle.awaitLoss(): LockLostException = lost().awaitUncancelled()

/**
 * The loss of this grant as a cold [Flow]: each collector gets the [LockLostException] once the
 * lock is lost while held, then the flow completes; it never emits if the handle is released first.
 */
fun LockHandle.loss(): Flow<LockLostException> = flow { emit(awaitLoss()) }

// ------------------------------------------------------------------------------------- internals

private suspend fun <T> whileHeld(held: LockHandle, action: suspend (LockHandle) -> T): T =
    coroutineScope {
      val watch = launch { throw held.awaitLoss() }
      try {
        action(held)
      } finally {
        watch.cancel()
      }
    }

/**
 * Awaits a grant. Cancellation cancels the future (which withdraws the request); a grant that
 * completed first, or whose value a cancelled coroutine would drop, is released.
 */
private suspend fun CompletableFuture<LockHandle>.awaitGrant(): LockHandle =
    suspendCancellableCoroutine { cont ->
      cont.invokeOnCancellation {
        if (!cancel(true)) {
          grantOrNull()?.releaseAsync() // granted before the cancellation: give it back
        }
      }
      whenComplete { handle, error ->
        if (error != null) {
          cont.resumeWithException(unwrap(error))
        } else {
          cont.resume(handle) { _, granted, _ -> granted.releaseAsync() }
        }
      }
    }

private fun CompletableFuture<LockHandle>.grantOrNull(): LockHandle? =
    if (isDone && !isCompletedExceptionally && !isCancelled) join() else null

/** Awaits a future without cancelling it when the coroutine is cancelled. */
private suspend fun <T> CompletableFuture<T>.awaitUncancelled(): T =
    suspendCancellableCoroutine { cont ->
      whenComplete { value, error ->
        if (error != null) cont.resumeWithException(unwrap(error)) else cont.resume(value)
      }
    }

private fun unwrap(e: Throwable): Throwable =
    if ((e is CompletionException || e is ExecutionException) && e.cause != null) e.cause!! else e

/**
 * tryAcquire within a timeout: a zero timeout asks once ([tryNow], on the IO dispatcher, since it
 * makes one round trip); a positive one awaits [request] under a timeout. A grant made as the
 * timeout or a cancellation strikes is released, never returned nor leaked.
 */
private suspend fun tryWithin(
    timeout: Duration,
    tryNow: () -> LockHandle?,
    request: () -> CompletableFuture<LockHandle>,
): LockHandle? {
  require(!timeout.isNegative()) { "timeout must not be negative: $timeout" }
  var got: LockHandle? = null
  try {
    if (timeout == Duration.ZERO) {
      withContext(Dispatchers.IO + NonCancellable) { got = tryNow() }
    } else {
      withTimeout(timeout) { got = request().awaitGrant() }
    }
  } catch (e: TimeoutCancellationException) {
    got?.releaseAsync() // granted as the timeout struck: the timeout wins
    return null
  } catch (e: CancellationException) {
    got?.releaseAsync()
    throw e
  }
  return got
}
