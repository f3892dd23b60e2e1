package io.zklock.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lock.LockResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * etcd's lock service behind the facade, as its documentation shows it: one jetcd {@link Client}
 * per session, one lease per session (granted at connect, its TTL the session length of the run,
 * kept alive by jetcd), and {@code Lock.lock(name, lease)} / {@code Lock.unlock(key)} for each
 * acquisition. The fencing token is the revision of the grant's response header: every grant
 * follows the deletion of the previous holder's key, so the revisions of successive grants strictly
 * increase. The holder is told of loss when jetcd ends the lease's keep-alive stream (it does when
 * the lease's deadline passes without a renewal, or on an error).
 */
final class EtcdBenchClient implements BenchLock.Client {
  static final String PREFIX = "bench-etcd/";

  private final Client client;
  private final long lease;
  private final CloseableClient keepAlive;
  private final CompletableFuture<String> leaseEnded = new CompletableFuture<>();

  EtcdBenchClient(Endpoints endpoints) throws Exception {
    if (endpoints.etcd().isEmpty()) {
      throw new UnsupportedOperationException(
          "etcd is not installed (" + PeerServer.Etcd.INSTALL + ")");
    }
    this.client =
        Client.builder()
            .endpoints(endpoints.etcd().toArray(String[]::new))
            .connectTimeout(java.time.Duration.ofSeconds(30))
            .build();
    try {
      long ttl = Math.max(2, endpoints.session().toSeconds());
      this.lease = client.getLeaseClient().grant(ttl).get(30, TimeUnit.SECONDS).getID();
      this.keepAlive =
          client
              .getLeaseClient()
              .keepAlive(
                  lease,
                  new StreamObserver<LeaseKeepAliveResponse>() {
                    @Override
                    public void onNext(LeaseKeepAliveResponse r) {
                      if (r.getTTL() <= 0) {
                        leaseEnded.complete("keep-alive answered TTL " + r.getTTL());
                      }
                    }

                    @Override
                    public void onError(Throwable t) {
                      leaseEnded.complete("keep-alive failed: " + t);
                    }

                    @Override
                    public void onCompleted() {
                      leaseEnded.complete("keep-alive completed (lease deadline passed)");
                    }
                  });
    } catch (Exception e) {
      client.close();
      throw e;
    }
  }

  @Override
  public BenchLock mutex(String name) {
    ByteSequence key = ByteSequence.from(PREFIX + name, StandardCharsets.UTF_8);
    return () -> {
      LockResponse r;
      try {
        r = client.getLockClient().lock(key, lease).get();
      } catch (InterruptedException e) {
        throw e;
      }
      ByteSequence held = r.getKey();
      long revision = r.getHeader().getRevision();
      return new BenchLock.Held() {
        @Override
        public void release() throws Exception {
          client.getLockClient().unlock(held).get();
        }

        @Override
        public void releaseAsync() {
          client.getLockClient().unlock(held);
        }

        @Override
        public OptionalLong token() {
          return OptionalLong.of(revision);
        }

        @Override
        public CompletableFuture<String> toldOfLoss() {
          return leaseEnded;
        }
      };
    };
  }

  @Override
  public BenchLock readLock(String name) {
    throw new UnsupportedOperationException("etcd has no read-write lock");
  }

  @Override
  public BenchLock writeLock(String name) {
    throw new UnsupportedOperationException("etcd has no read-write lock");
  }

  @Override
  public BenchLock semaphore(String name, int permits) {
    throw new UnsupportedOperationException("etcd has no semaphore");
  }

  @Override
  public String queueDir(String name) {
    return PREFIX + name;
  }

  @Override
  public void close() {
    keepAlive.close();
    try {
      client.getLeaseClient().revoke(lease).get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // the lease expires by itself
    }
    client.close();
  }
}
