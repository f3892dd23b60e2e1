package io.zklock.cli;

import picocli.CommandLine.Command;

@Command(name = "demo", mixinStandardHelpOptions = true)
final class DemoCommand implements Runnable {
  @Override
  public void run() {}
}
