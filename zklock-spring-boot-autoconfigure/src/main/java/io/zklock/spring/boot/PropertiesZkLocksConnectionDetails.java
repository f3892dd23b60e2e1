package io.zklock.spring.boot;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/** {@link ZkLocksConnectionDetails} from the {@code zklock.*} properties. */
class PropertiesZkLocksConnectionDetails implements ZkLocksConnectionDetails {
  private final ZkLockProperties properties;
  private final SslBundles sslBundles;

  PropertiesZkLocksConnectionDetails(ZkLockProperties properties, SslBundles sslBundles) {
    this.properties = properties;
    this.sslBundles = sslBundles;
  }

  @Override
  public String getConnectString() {
    return properties.getConnectString();
  }

  @Override
  public String getUsername() {
    return properties.getAuth().getUsername();
  }

  @Override
  public String getPassword() {
    return properties.getAuth().getPassword();
  }

  @Override
  public SslBundle getSslBundle() {
    String name = properties.getSsl().getBundle();
    if (name == null) {
      return null;
    }
    if (sslBundles == null) {
      throw new IllegalStateException(
          "zklock.ssl.bundle is " + name + ", but the application has no SSL bundles");
    }
    return sslBundles.getBundle(name);
  }
}
