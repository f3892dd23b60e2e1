package io.zklock.bench;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Keeps ZooKeeper's and Curator's INFO chatter out of the benchmark's output. */
final class Logging {
  private Logging() {}

  static void quiet() {
    if (LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)
        instanceof ch.qos.logback.classic.Logger root) {
      root.setLevel(ch.qos.logback.classic.Level.WARN);
    }
    // the peers' clients log every failed renewal and reconnection of a black-holed or closed
    // session at ERROR: the loss scenario causes them on purpose
    for (String name :
        new String[] {"org.redisson", "io.etcd", "io.grpc", "io.vertx", "io.netty"}) {
      if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger l) {
        l.setLevel(ch.qos.logback.classic.Level.OFF);
      }
    }
    // and the ZooKeeper clients warn of each lost connection and expired session
    for (String name : new String[] {"org.apache.curator", "org.apache.zookeeper.ClientCnxn"}) {
      if (LoggerFactory.getLogger(name) instanceof ch.qos.logback.classic.Logger l) {
        l.setLevel(ch.qos.logback.classic.Level.ERROR);
      }
    }
  }
}
