package io.zklock.consumers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.core.type.classreading.SimpleMetadataReaderFactory;

/**
 * zklock's jars of this line carry Spring Boot's auto-configuration metadata ({@code
 * META-INF/spring-autoconfigure-metadata.properties}, from spring-boot-autoconfigure-processor),
 * which Spring Boot reads to filter auto-configurations by their class conditions and order them
 * without loading them: every zklock auto-configuration an application's class path lists is in
 * it, with the classes of its {@code @ConditionalOnClass} and its {@code after} as its annotations
 * name them (read from the class files, unloaded).
 */
class AutoConfigurationMetadataTest {
  private static final String IMPORTS =
      "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";
  private static final String METADATA = "META-INF/spring-autoconfigure-metadata.properties";

  private final ClassLoader loader = getClass().getClassLoader();
  private final MetadataReaderFactory readers = new SimpleMetadataReaderFactory(loader);

  private List<String> zklockAutoConfigurations() throws Exception {
    List<String> out = new ArrayList<>();
    for (URL url : Collections.list(loader.getResources(IMPORTS))) {
      try (InputStream in = url.openStream()) {
        for (String line : new String(in.readAllBytes()).split("\\R")) {
          String name = line.replaceAll("#.*", "").trim();
          if (name.startsWith("io.zklock.")) {
            out.add(name);
          }
        }
      }
    }
    return out;
  }

  private Properties metadata() throws Exception {
    Properties all = new Properties();
    for (URL url : Collections.list(loader.getResources(METADATA))) {
      try (InputStream in = url.openStream()) {
        all.load(in);
      }
    }
    return all;
  }

  @Test
  void everyZklockAutoConfiguration_isInTheMetadata_withItsClassConditionsAndOrder()
      throws Exception {
    List<String> autoConfigurations = zklockAutoConfigurations();
    assertThat(autoConfigurations)
        .as("zklock's auto-configurations on this line's class path")
        .contains(
            "io.zklock.spring.boot.ZkLocksAutoConfiguration",
            "io.zklock.spring.boot.ZkLocksEndpointAutoConfiguration")
        .anyMatch(c -> c.startsWith("io.zklock.spring.boot.health."));
    Properties metadata = metadata();

    for (String type : autoConfigurations) {
      assertThat(metadata).as("%s in %s", type, METADATA).containsKey(type);
      AnnotationMetadata annotations =
          readers.getMetadataReader(type).getAnnotationMetadata();

      Set<String> onClass =
          classNames(
              annotations.getAnnotationAttributes(
                  "org.springframework.boot.autoconfigure.condition.ConditionalOnClass", true));
      assertThat(split(metadata.getProperty(type + ".ConditionalOnClass")))
          .as("%s.ConditionalOnClass", type)
          .isEqualTo(onClass);

      Set<String> after =
          classNames(
              annotations.getAnnotationAttributes(
                  "org.springframework.boot.autoconfigure.AutoConfiguration", true),
              "after",
              "afterName");
      assertThat(split(metadata.getProperty(type + ".AutoConfigureAfter")))
          .as("%s.AutoConfigureAfter", type)
          .isEqualTo(after);
    }
  }

  private static Set<String> classNames(Map<String, Object> attributes) {
    return classNames(attributes, "value", "name");
  }

  private static Set<String> classNames(Map<String, Object> attributes, String... keys) {
    Set<String> out = new TreeSet<>();
    if (attributes == null) {
      return out;
    }
    for (String key : keys) {
      Object value = attributes.get(key);
      if (value instanceof String[] names) {
        out.addAll(Arrays.asList(names));
      }
    }
    return out;
  }

  private static Set<String> split(String value) {
    if (value == null || value.isBlank()) {
      return new TreeSet<>();
    }
    return Arrays.stream(value.split(","))
        .map(String::trim)
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
