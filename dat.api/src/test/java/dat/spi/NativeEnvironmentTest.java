// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * {@link NativeEnvironment#prepare} sets every variable once, from whichever provider comes first, and never again:
 * the property that keeps glibc's {@code setenv} from reallocating {@code environ} under a library's {@code getenv}.
 * The handle here records instead of calling libc, so this JVM's environment is untouched; the image's
 * {@code DatImageIT} checks the real one with every provider loading side by side.
 */
class NativeEnvironmentTest {

    private static final List<String> CALLS = new ArrayList<>();

    @SuppressWarnings("unused") // called through the handle
    private static int record(MemorySegment name, MemorySegment value, int overwrite) {
        synchronized (CALLS) {
            CALLS.add(name.getString(0) + "=" + value.getString(0) + " overwrite=" + overwrite);
        }
        return 0;
    }

    private static MethodHandle recorder() throws ReflectiveOperationException {
        return MethodHandles.lookup().findStatic(NativeEnvironmentTest.class, "record",
                MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class, int.class));
    }

    /** The one test of the process-wide state: eight providers' threads race to prepare, then one comes late. */
    @Test
    void theFirstOfManyRacingCallsSetsEveryVariableOnceAndLaterCallsSetNothing() throws Exception {
        MethodHandle setenv = recorder();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                NativeEnvironment.prepare(() -> setenv);
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(List.of("FI_MR_CACHE_MAX_COUNT=0 overwrite=1", "DAPL_DBG_TYPE=0 overwrite=0"), CALLS);

        NativeEnvironment.prepare(() -> setenv);
        NativeEnvironment.prepare(() -> {
            throw new AssertionError("a later call asked for the handle");
        });
        assertEquals(2, CALLS.size(), CALLS::toString);
    }

    @Test
    void aVariableNeedsANameAndAValue() {
        assertThrows(NullPointerException.class, () -> new NativeEnvironment.Variable(null, "0", true));
        assertThrows(NullPointerException.class, () -> new NativeEnvironment.Variable("X", null, true));
    }
}
