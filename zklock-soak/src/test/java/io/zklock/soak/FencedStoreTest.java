package io.zklock.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's view of critical sections, which the ISOLATE_HOLDER fault heals on. */
class FencedStoreTest {
  @TempDir Path dir;

  @Test
  void conflictingBeginSince_onlyAnotherProcessesConflictingGrant() throws Exception {
    try (FencedStore store = FencedStore.start(dir.resolve("store.log"))) {
      store.write("soak/rw", "W", 10, "c0.0/w0/1", "begin-long");
      FencedStore.Section victim = store.openSections().get(0);
      long since = System.nanoTime();
      store.write("soak/mutex", "M", 11, "c1.0/w0/1", "begin"); // another lock
      store.write("soak/rw", "R", 12, "c0.0/w1/1", "begin"); // the victim's own process
      assertThat(store.conflictingBeginSince(victim, since)).isEmpty();

      store.write("soak/rw", "R", 13, "c2.0/w0/1", "begin");
      store.write("soak/rw", "W", 14, "c1.0/w1/1", "begin");

      assertThat(store.conflictingBeginSince(victim, since))
          .map(FencedStore.Section::handle)
          .contains("c2.0/w0/1");
    }
  }

  @Test
  void conflictingBeginSince_readerVictim_onlyAWriterConflicts() throws Exception {
    try (FencedStore store = FencedStore.start(dir.resolve("store.log"))) {
      store.write("soak/rw", "R", 10, "c0.0/w0/1", "begin-long");
      FencedStore.Section victim = store.openSections().get(0);
      long since = System.nanoTime();
      store.write("soak/rw", "R", 11, "c1.0/w0/1", "begin");
      assertThat(store.conflictingBeginSince(victim, since)).isEmpty();

      store.write("soak/rw", "W", 12, "c1.0/w1/1", "begin");

      assertThat(store.conflictingBeginSince(victim, since))
          .map(FencedStore.Section::handle)
          .contains("c1.0/w1/1");
      assertThat(store.openSections()).hasSize(3);
      store.write("soak/rw", "R", 10, "c0.0/w0/1", "abandon");
      assertThat(store.openSections()).hasSize(2);
    }
  }
}
