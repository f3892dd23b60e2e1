package io.zklock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zklock.LockHandle;
import io.zklock.SessionState;
import io.zklock.ZkLocks;
import io.zklock.testkit.EmbeddedZooKeeper;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsNotFoundException;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.context.TestContextManager;
import org.springframework.test.context.TestPropertySource;
import org.testcontainers.containers.Container;

/**
 * Spring Boot's {@code @ServiceConnection} on a ZooKeeper test container gives the auto-configured
 * ZkLocks its connection ({@link ZkLocksContainerConnectionDetailsFactory}), as a test of an
 * application declares it:
 *
 * <pre>{@code
 * @Container @ServiceConnection
 * static GenericContainer<?> zooKeeper = new GenericContainer<>("zookeeper:3.9").withExposedPorts(2181);
 * }</pre>
 *
 * No Docker here: the field holds a stand-in for such a container, started, of the image {@code
 * zookeeper:3.9.4}, whose host and port mapped to 2181 are those of zklock-testkit's server. The
 * rest is Spring Boot's own: its test context reads the field, matches the image to zklock's
 * factory and registers the connection details, which the ZkLocks bean connects with.
 */
class ZkLocksServiceConnectionTest {
  private static final EmbeddedZooKeeper zk = EmbeddedZooKeeper.standalone().start();

  /** What the container was asked for, in order. */
  private static final List<String> asked = new CopyOnWriteArrayList<>();

  /**
   * A test class of an application, as Spring's test framework runs it (its TestContextManager,
   * without the JUnit extension of Spring Framework 7, which needs a newer JUnit than this
   * build's).
   */
  @ContextConfiguration(classes = ApplicationTest.App.class)
  @TestPropertySource(properties = "zklock.namespace=/service-connection")
  static class ApplicationTest {
    @ServiceConnection
    static final Container<?> zooKeeper = startedContainer("zookeeper:3.9.4", zk.clientPort());

    @SpringBootConfiguration(proxyBeanMethods = false)
    @ImportAutoConfiguration(ZkLocksAutoConfiguration.class)
    static class App {}

    @Autowired ZkLocks locks;
    @Autowired ZkLocksConnectionDetails details;
  }

  /** The same application with a container of another service's image. */
  @ContextConfiguration(classes = ApplicationTest.App.class)
  static class OtherImageTest {
    @ServiceConnection
    static final Container<?> queue = startedContainer("example/queue:1.0", zk.clientPort());
  }

  @AfterAll
  static void stopServer() {
    zk.close();
  }

  @Test
  void serviceConnection_onAZooKeeperContainer_theZkLocksBeanConnectsToIt() throws Exception {
    TestContextManager spring = new TestContextManager(ApplicationTest.class);
    ApplicationTest test = new ApplicationTest();
    spring.prepareTestInstance(test);
    try {
      assertThat(test.details).isNotInstanceOf(PropertiesZkLocksConnectionDetails.class);
      assertThat(test.details.getConnectString()).isEqualTo("127.0.0.1:" + zk.clientPort());
      assertThat(asked)
          .as("the container's host and mapped client port")
          .contains("getHost", "getMappedPort(2181)");
      assertThat(test.locks.sessionState()).isEqualTo(SessionState.CONNECTED);
      try (LockHandle h = test.locks.mutex("job").acquire()) {
        assertThat(h.path()).startsWith("/service-connection/job/");
      }
    } finally {
      spring.getTestContext().markApplicationContextDirty(null);
      spring.afterTestClass();
    }
  }

  @Test
  void serviceConnection_onAnotherImagesContainer_notTakenForZooKeeper() {
    TestContextManager spring = new TestContextManager(OtherImageTest.class);
    assertThatThrownBy(() -> spring.prepareTestInstance(new OtherImageTest()))
        .rootCause()
        .isInstanceOf(ConnectionDetailsNotFoundException.class)
        .hasMessageContaining("OtherImageTest.queue");
  }

  /**
   * A Testcontainers {@link Container} as far as a started one answers what Spring Boot and
   * zklock's factory ask of it: its image, its host, its mapped port.
   */
  private static Container<?> startedContainer(String image, int mappedClientPort) {
    return (Container<?>)
        Proxy.newProxyInstance(
            ZkLocksServiceConnectionTest.class.getClassLoader(),
            new Class<?>[] {Container.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "getDockerImageName":
                  return image;
                case "getHost":
                  asked.add("getHost");
                  return "127.0.0.1";
                case "getMappedPort":
                  asked.add("getMappedPort(" + args[0] + ")");
                  return (Integer) args[0] == 2181 ? mappedClientPort : null;
                case "isRunning":
                  return true;
                case "toString":
                  return "container of " + image;
                case "hashCode":
                  return System.identityHashCode(proxy);
                case "equals":
                  return proxy == args[0];
                default:
                  throw new UnsupportedOperationException(method.getName());
              }
            });
  }
}
