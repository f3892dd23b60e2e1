/**
 * Test infrastructure for code that uses ZooKeeper: embedded servers and ensembles ({@link
 * io.zklock.testkit.EmbeddedZooKeeper}, {@link io.zklock.testkit.ZooKeeperEnsemble}), a
 * fault-injecting TCP proxy ({@link io.zklock.testkit.FaultProxy}), session expiry ({@link
 * io.zklock.testkit.SessionKiller}), four-letter-word access ({@link
 * io.zklock.testkit.FourLetterWords}) and TLS material ({@link
 * io.zklock.testkit.TestCertificates}).
 *
 * <p>Everything binds 127.0.0.1 only and picks free ports. Some ZooKeeper server settings are
 * JVM-wide system properties; each class documents which ones it sets.
 */
package io.zklock.testkit;
