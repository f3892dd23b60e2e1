package io.zklock.sim;

import java.util.List;

/**
 * A transaction of the ensemble's log, as the leader prepared it: every server applies the same
 * ones in zxid order. A failed write is an {@link Error} transaction (it takes a zxid, as in
 * ZooKeeper).
 */
public sealed interface Txn {
  record Create(String path, byte[] data, long ephemeralOwner, boolean container) implements Txn {}

  record Delete(String path) implements Txn {}

  record SetData(String path, byte[] data) implements Txn {}

  record Check(String path) implements Txn {}

  record Multi(List<Txn> ops) implements Txn {}

  record CreateSession(long session, int timeoutMs) implements Txn {}

  /** A session ends (closed by its client, or expired by the leader): its ephemerals go. */
  record CloseSession(long session, boolean expired) implements Txn {}

  record Error(int rc) implements Txn {}

  /** One entry of the committed log. */
  record Entry(long zxid, long timeMillis, long session, Txn txn) {}
}
