package com.example.scheduledjob;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A service whose scheduled jobs run on one instance at a time, however many instances run: start
 * several and watch them take turns. zklock-spring-boot-starter makes the {@code ZkLocks} bean
 * (from {@code zklock.*} in application.properties), the ShedLock lock provider, the {@code zklock}
 * health indicator and the {@code zklock.*} meters.
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT10M")
public class ScheduledJobApplication {
  public static void main(String[] args) {
    SpringApplication.run(ScheduledJobApplication.class, args);
  }
}
