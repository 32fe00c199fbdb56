// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The data path's downcalls ({@link Fi#post}, {@link Fi#cqRead}) can block inside libfabric: shm 1.17 spins for ever
 * on the region lock of a peer that died holding it. The JVM must still reach its safepoints meanwhile, or that one
 * thread stops every other (GC, {@code System.exit}, a thread dump). Here the "op" each is given is libc's
 * {@code sleep}, whose first argument is the seconds.
 */
class FiTest {

    private static final long BLOCK_SECONDS = 6;

    @Test
    @SuppressWarnings("restricted")
    void dataPathCallsLetTheJvmReachASafepointWhileTheyBlock() throws Exception {
        MemorySegment sleep = Linker.nativeLinker().defaultLookup().find("sleep").orElseThrow();
        CountDownLatch entering = new CountDownLatch(2);
        Thread post = Thread.ofPlatform().daemon().start(() -> {
            entering.countDown();
            long _ = Fi.post(sleep, BLOCK_SECONDS, 0, 0);
        });
        Thread read = Thread.ofPlatform().daemon().start(() -> {
            entering.countDown();
            long _ = Fi.cqRead(sleep, BLOCK_SECONDS, 0, 0);
        });
        entering.await();
        Thread.sleep(500);

        long start = System.nanoTime();
        System.gc();
        var _ = Thread.getAllStackTraces();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertTrue(took.compareTo(Duration.ofSeconds(BLOCK_SECONDS / 2)) < 0,
                "a GC and a thread dump waited " + took + " for threads blocked in Fi.post and Fi.cqRead");
        post.join();
        read.join();
    }
}
