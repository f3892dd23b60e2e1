/**
 * Test-run support for JUnit 5: a failure by time-out carries a dump of every thread ({@link
 * io.zklock.testkit.junit.TimeoutThreadDump}, a Jupiter extension), and a test still running long
 * past its time-out, in any engine, is named with a thread dump ({@link
 * io.zklock.testkit.junit.HangWatchdog}, a JUnit Platform listener). Both are inert until
 * registered: the extension by JUnit's extension auto-detection, the listener by a service file in
 * the test resources. This package needs JUnit 5 at run time, which a test run has; the rest of the
 * test kit does not.
 */
package io.zklock.testkit.junit;
