// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * {@link NativeEnvironment#prepare} sets every variable once, from whichever provider comes first, and never again:
 * the property that keeps glibc's {@code setenv} from reallocating {@code environ} under a library's {@code getenv}.
 * {@link NativeEnvironment#keepingSignals} puts back exactly the handlers a call replaced. The C library here is a
 * recorder and a table, so this JVM's environment and handlers are untouched; the image's {@code DatImageIT} checks
 * the real ones with every provider loading side by side.
 */
class NativeEnvironmentTest {

    private static final List<String> SETENV_CALLS = new ArrayList<>();
    /** The fake's handlers, by signal number: what {@code sa_handler} would hold. */
    private static final long[] HANDLERS = new long[65];
    private static final List<Integer> INSTALLS = new ArrayList<>();
    private static final long FOREIGN = 0xbadL;

    static {
        resetHandlers(); // the JVM's, as the first prepare finds them
    }

    /** The one C library every test prepares with: the first call in this JVM wins, whichever test makes it. */
    private static final NativeEnvironment.Libc LIBC = (function, signature) -> {
        try {
            return switch (function) {
                case "setenv" -> MethodHandles.lookup().findStatic(NativeEnvironmentTest.class, "setenv",
                        MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class, int.class));
                case "sigaction" -> MethodHandles.lookup().findStatic(NativeEnvironmentTest.class, "sigaction",
                        MethodType.methodType(int.class, int.class, MemorySegment.class, MemorySegment.class));
                default -> null;
            };
        } catch (ReflectiveOperationException e) {
            throw new LinkageError(e.getMessage(), e);
        }
    };

    @SuppressWarnings("unused") // called through the handle
    private static int setenv(MemorySegment name, MemorySegment value, int overwrite) {
        synchronized (SETENV_CALLS) {
            SETENV_CALLS.add(name.getString(0) + "=" + value.getString(0) + " overwrite=" + overwrite);
        }
        return 0;
    }

    @SuppressWarnings("unused") // called through the handle
    private static int sigaction(int signal, MemorySegment act, MemorySegment old) {
        synchronized (HANDLERS) {
            if (!old.equals(MemorySegment.NULL)) {
                old.set(JAVA_LONG, 0, HANDLERS[signal]);
            }
            if (!act.equals(MemorySegment.NULL)) {
                HANDLERS[signal] = act.get(JAVA_LONG, 0);
                INSTALLS.add(signal);
            }
        }
        return 0;
    }

    /** A library's constructor: its own handler for each signal named. */
    private static void install(int... signals) {
        synchronized (HANDLERS) {
            for (int s : signals) {
                HANDLERS[s] = FOREIGN;
            }
        }
    }

    private static void resetHandlers() {
        synchronized (HANDLERS) {
            for (int s = 0; s < HANDLERS.length; s++) {
                HANDLERS[s] = 0x7f00_0000_0000L + s;
            }
            INSTALLS.clear();
        }
    }

    /** The one test of the variables: eight providers' threads race to prepare, then one comes late. */
    @Test
    void theFirstOfManyRacingCallsSetsEveryVariableOnceAndLaterCallsSetNothing() throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                NativeEnvironment.prepare(LIBC);
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(List.of("FI_MR_CACHE_MAX_COUNT=0 overwrite=1", "DAPL_DBG_TYPE=0 overwrite=0",
                "IPATH_NO_BACKTRACE=1 overwrite=0"), SETENV_CALLS);

        NativeEnvironment.prepare(LIBC);
        NativeEnvironment.prepare((function, signature) -> {
            throw new AssertionError("a later call asked for " + function);
        });
        assertEquals(3, SETENV_CALLS.size(), SETENV_CALLS::toString);
    }

    /** libinfinipath's constructor replaces six handlers: those six are put back, no other is touched. */
    @Test
    void keepingSignals_putsBackWhatTheCallReplacedAndNothingElse() {
        NativeEnvironment.prepare(LIBC);
        resetHandlers();
        String result = NativeEnvironment.keepingSignals("libtest", () -> {
            install(11, 7, 4, 6, 2, 15);
            return "loaded";
        });
        assertEquals("loaded", result);
        synchronized (HANDLERS) {
            for (int s = 1; s < HANDLERS.length; s++) {
                assertEquals(0x7f00_0000_0000L + s, HANDLERS[s], "handler of signal " + s);
            }
            assertEquals(List.of(2, 4, 6, 7, 11, 15), INSTALLS);
        }
    }

    @Test
    void keepingSignals_putsBackWhatAFailedCallReplaced() {
        NativeEnvironment.prepare(LIBC);
        resetHandlers();
        assertThrows(IllegalStateException.class, () -> NativeEnvironment.keepingSignals("libtest", () -> {
            install(11);
            throw new IllegalStateException("dlopen failed");
        }));
        synchronized (HANDLERS) {
            assertEquals(0x7f00_0000_0000L + 11, HANDLERS[11]);
            assertEquals(List.of(11), INSTALLS);
        }
    }

    /**
     * Two loads overlap: the first's library installed its handler, this call began while it was in place, and the
     * first put the JVM's back before this call ended. This call must not put the foreign one back.
     */
    @Test
    void keepingSignals_neverPutsBackAHandlerItFoundThatIsNotTheJvms() {
        NativeEnvironment.prepare(LIBC);
        resetHandlers();
        install(11, 7);
        NativeEnvironment.keepingSignals("libsecond", () -> {
            synchronized (HANDLERS) {
                HANDLERS[11] = 0x7f00_0000_0000L + 11; // the first load's guard ends
            }
            install(15);
            return null;
        });
        synchronized (HANDLERS) {
            assertEquals(0x7f00_0000_0000L + 11, HANDLERS[11], "the first guard's restore stands");
            assertEquals(FOREIGN, HANDLERS[7], "unchanged by this call: the first guard's to restore");
            assertEquals(0x7f00_0000_0000L + 15, HANDLERS[15], "this call's own replacement");
            assertEquals(List.of(15), INSTALLS);
        }
        // Found foreign, replaced by another foreign one during the call: the JVM's, from before any load.
        NativeEnvironment.keepingSignals("libthird", () -> {
            synchronized (HANDLERS) {
                HANDLERS[7] = 0xcafeL;
            }
            return null;
        });
        synchronized (HANDLERS) {
            assertEquals(0x7f00_0000_0000L + 7, HANDLERS[7]);
        }
    }

    @Test
    void keepingSignals_changesNothingWhenTheCallKeptTheHandlers() {
        NativeEnvironment.prepare(LIBC);
        resetHandlers();
        assertEquals(42, NativeEnvironment.keepingSignals("libtest", () -> 42));
        synchronized (HANDLERS) {
            assertEquals(List.of(), INSTALLS);
        }
    }

    /** A library load: the loader's result, or its exception, with what its constructors replaced put back. */
    @Test
    void load_runsTheLoaderKeepingSignalsAndPassesItsFailureOn() {
        resetHandlers();
        SymbolLookup symbols = name -> Optional.empty();
        List<String> asked = new ArrayList<>();
        assertSame(symbols, NativeEnvironment.load("libtest.so.1", LIBC, name -> {
            asked.add(name);
            install(11, 15);
            return symbols;
        }));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NativeEnvironment.load("libnone.so.1", LIBC, name -> {
                    asked.add(name);
                    install(7);
                    throw new IllegalArgumentException("Cannot open library: " + name);
                }));
        assertEquals("Cannot open library: libnone.so.1", e.getMessage());
        assertEquals(List.of("libtest.so.1", "libnone.so.1"), asked);
        synchronized (HANDLERS) {
            for (int s : new int[] {7, 11, 15}) {
                assertEquals(0x7f00_0000_0000L + s, HANDLERS[s], "handler of signal " + s);
            }
            assertEquals(List.of(11, 15, 7), INSTALLS);
        }
        assertEquals(3, SETENV_CALLS.size(), "load prepares, once per process");
    }

    @Test
    void aVariableNeedsANameAndAValue() {
        assertThrows(NullPointerException.class, () -> new NativeEnvironment.Variable(null, "0", true));
        assertThrows(NullPointerException.class, () -> new NativeEnvironment.Variable("X", null, true));
    }
}
