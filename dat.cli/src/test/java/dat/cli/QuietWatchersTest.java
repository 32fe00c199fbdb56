// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The threads that watch a command and a measuring run sleep until something is due, rather than looking every few
 * milliseconds: each look is a wake-up on a CPU a benchmark's worker may spin on (a preempted round trip). Counted in
 * the kernel's {@code voluntary_ctxt_switches} of the watching thread, which polling at 20 ms (Watchdog) and 10 ms
 * (PerfEngine) made 50 and 100 a second.
 */
@EnabledOnOs(OS.LINUX)
class QuietWatchersTest {

    /** Wake-ups a second a watcher may make while nothing is due: the JVM's own (safepoints) and slack. */
    private static final double MAX_WAKEUPS_PER_SECOND = 12;

    @Test
    void theCommandsWatcherSleepsThroughAStepWithoutBound() throws IOException {
        long before = voluntarySwitches(Path.of("/proc/thread-self/status"));
        long start = System.nanoTime();
        int rc = Watchdog.run(30, w -> {
            w.step("measuring", 0);
            sleepQuietly(800);
            return 7;
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        long switches = voluntarySwitches(Path.of("/proc/thread-self/status")) - before;
        assertEquals(7, rc);
        assertTrue(switches / seconds < MAX_WAKEUPS_PER_SECOND,
                "the watching thread woke " + switches + " times in " + seconds + " s");
    }

    @Test
    void aMeasuringRunsWatcherSleepsWhileTheClientMeasures() throws Exception {
        AtomicBoolean done = new AtomicBoolean();
        // The watcher's (dat-command's) switches and the time, when the measuring client was first and last seen:
        // its set-up (IA, EPs, the connection) is not what is judged.
        long[] first = {-1, 0};
        long[] last = {-1, 0};
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (!done.get()) {
                try {
                    long n = switchesOf(Watchdog.THREAD_NAME);
                    if (n >= 0 && switchesOf("dat-perf-client") >= 0) {
                        long now = System.nanoTime();
                        if (first[0] < 0) {
                            first[0] = n;
                            first[1] = now;
                        }
                        last[0] = n;
                        last[1] = now;
                    }
                    Thread.sleep(25);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        });
        PerfCommandTest.Run r;
        try {
            r = PerfCommandTest.dat("perf", "pingpong", "--provider", "loopback", "--sizes", "8", "--iters",
                    "3000000", "--warmup", "0", "--timeout", "60");
        } finally {
            done.set(true);
            sampler.join();
        }
        assertEquals(0, r.exit(), r.err());
        double seconds = (last[1] - first[1]) / 1e9;
        long switches = last[0] - first[0];
        assertTrue(seconds >= 0.3, "the measuring was too short to judge: " + seconds + " s");
        assertTrue(switches / seconds < MAX_WAKEUPS_PER_SECOND,
                "the run's watcher woke " + switches + " times in " + seconds + " s of measuring");
    }

    /** {@return the voluntary context switches of this JVM's thread named {@code name}, or -1 when none runs} */
    private static long switchesOf(String name) throws IOException {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().equals(name)) {
                        return voluntarySwitches(task.resolve("status"));
                    }
                } catch (IOException gone) {
                    // The thread ended between the listing and the read.
                }
            }
        }
        return -1;
    }

    private static long voluntarySwitches(Path status) throws IOException {
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("voluntary_ctxt_switches:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
            }
        }
        throw new IOException(status + " has no voluntary_ctxt_switches");
    }

    private static void sleepQuietly(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
