package io.zklock.internal.coord;

import static io.zklock.internal.engine.EngineFixture.NS;

import io.zklock.internal.engine.EngineFixture;

/** The coordination recipes' context on an engine fixture's fakes. */
final class FakeCoord {
  private FakeCoord() {}

  /** The coordination context of {@code f}'s instance: its fake session, without a lifecycle. */
  static CoordContext of(EngineFixture f) {
    return new CoordContext(
        f.ctx.session(),
        f.ctx.dirs(),
        f.ctx.acl(),
        f.ctx.ids(),
        f.ctx.events(),
        f.ctx.clock(),
        f.ctx.executor(),
        f.ctx.scheduler(),
        null,
        NS);
  }
}
