package io.zklock.spring.boot;

import java.util.List;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.Container;

/**
 * Spring Boot's {@code @ServiceConnection} for a ZooKeeper test container: the {@link
 * ZkLocksConnectionDetails} of a Testcontainers container of one of ZooKeeper's images ({@code
 * zookeeper}, {@code bitnami/zookeeper}, {@code confluentinc/cp-zookeeper}), or of any container
 * whose {@code @ServiceConnection} is named {@code "zookeeper"}: the container's host and the port
 * it maps ZooKeeper's client port, 2181, to. Registered in {@code META-INF/spring.factories}; it is
 * used only where the application's tests have Spring Boot's Testcontainers support.
 */
class ZkLocksContainerConnectionDetailsFactory
    extends ContainerConnectionDetailsFactory<Container<?>, ZkLocksConnectionDetails> {
  /** ZooKeeper's client port inside the container (the images' {@code clientPort}). */
  static final int CLIENT_PORT = 2181;

  ZkLocksContainerConnectionDetailsFactory() {
    super(
        List.of("zookeeper", "bitnami/zookeeper", "confluentinc/cp-zookeeper"),
        "io.zklock.ZkLocks");
  }

  @Override
  protected ZkLocksConnectionDetails getContainerConnectionDetails(
      ContainerConnectionSource<Container<?>> source) {
    return new ContainerDetails(source);
  }

  /** The container's address, read when the ZkLocks bean connects (the container started). */
  private static final class ContainerDetails extends ContainerConnectionDetails<Container<?>>
      implements ZkLocksConnectionDetails {
    ContainerDetails(ContainerConnectionSource<Container<?>> source) {
      super(source);
    }

    @Override
    public String getConnectString() {
      Container<?> container = getContainer();
      return container.getHost() + ":" + container.getMappedPort(CLIENT_PORT);
    }

    /**
     * The SSL bundle of the container's {@code @Ssl...} annotations (Spring Boot's), if any: the
     * container then serves TLS on the port mapped to 2181.
     */
    @Override
    public SslBundle getSslBundle() {
      return super.getSslBundle();
    }
  }
}
