@file:JvmName("LeaderElectionCoroutines")

package io.zklock.kotlin

import io.zklock.LeaderElection
import io.zklock.LeadershipListener
import kotlinx.coroutines.channels.awaitClose
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.callbackFlow
import kotlinx.coroutines.flow.filterIsInstance
import kotlinx.coroutines.flow.first

/** A change of this participant's leadership, as [LeadershipListener] hears it. */
sealed interface Leadership {
  /** The term: its fencing token, greater than every earlier term's. */
  val epoch: Long

  /** This participant became the leader. */
  data class Elected(override val epoch: Long) : Leadership

  /** This participant is no longer the leader (resigned, closed, or its session expired). */
  data class Revoked(override val epoch: Long) : Leadership
}

/**
 * This participant's leadership as a [Flow]: [Leadership.Elected] when it becomes the leader (at
 * once if it leads when collection starts), [Leadership.Revoked] when it stops. The flow does not
 * complete by itself; cancel its collector. The election must be [started][LeaderElection.start].
 */
fun LeaderElection.leadership(): Flow<Leadership> = callbackFlow {
  val listener =
      object : LeadershipListener {
        override fun elected(epoch: Long) {
          trySend(Leadership.Elected(epoch))
        }

        override fun revoked(epoch: Long) {
          trySend(Leadership.Revoked(epoch))
        }
      }
  addListener(listener)
  awaitClose { removeListener(listener) }
}

/**
 * Suspends until this participant leads (at once if it does) and returns the term's epoch; the
 * suspending form of [LeaderElection.awaitLeadership]. Cancellation stops the wait and leaves the
 * participant in the election. The election must be [started][LeaderElection.start].
 */
suspend fun LeaderElection.awaitLeadership(): Long =
    leadership().filterIsInstance<Leadership.Elected>().first().epoch
