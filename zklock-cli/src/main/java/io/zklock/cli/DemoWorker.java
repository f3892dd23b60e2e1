package io.zklock.cli;

import picocli.CommandLine.Command;

@Command(name = "demo-worker", mixinStandardHelpOptions = true)
final class DemoWorker implements Runnable {
  @Override
  public void run() {}
}
