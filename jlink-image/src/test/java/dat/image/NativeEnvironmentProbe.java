// SPDX-License-Identifier: Apache-2.0
package dat.image;

import dat.api.DatIa;
import dat.spi.DatProvider;
import dat.spi.NativeEnvironment;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Run by {@code DatImageIT} in the image's JVM: the providers named on the command line load their libraries in that
 * order, the first alone; then a thread reads the C environment without pause, as libdat2's, libibverbs' and
 * libfabric's own code does, while the others load. Prints each of {@link NativeEnvironment#VARIABLES} as libc's
 * {@code getenv} sees it once the first has loaded, then {@code done}. A provider that adds a variable after another
 * library is running makes glibc free the {@code environ} the reader walks: this JVM then dies of SIGSEGV in
 * {@code getenv}, as {@code dat perf serve} once did on the thread loading libdat2.
 *
 * <p>All the while another thread reads the JVM's handlers of the signals a library may take ({@code sigaction}) and
 * prints {@code signals kept} if it never saw one replaced, or which it saw. Then a shm IA opens, and must find the
 * JVM's handlers in place and keep its names through safepoints under a compiled loop; then the JVM runs more of
 * those, which a foreign SIGSEGV handler turns into an exit. libinfinipath, which libfabric links, installed its
 * handlers while libfabric loaded, and {@code dat info --json} died so; shm's, installed with its first endpoint,
 * unlinked the IA's names.
 */
public final class NativeEnvironmentProbe {

    private NativeEnvironmentProbe() {
    }

    /**
     * Loads the providers and reports.
     *
     * @param args provider names, the first loaded alone
     * @throws Throwable when the getenv binding fails
     */
    @SuppressWarnings("restricted")
    public static void main(String[] args) throws Throwable {
        Map<String, DatProvider> byName = new LinkedHashMap<>();
        for (DatProvider p : ServiceLoader.load(DatProvider.class)) {
            byName.put(p.name(), p);
        }
        Linker linker = Linker.nativeLinker();
        MethodHandle getenv = linker.downcallHandle(linker.defaultLookup().find("getenv").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));

        SignalWatch watch = new SignalWatch(linker);

        System.out.println(args[0] + " available=" + byName.get(args[0]).info().available());
        try (Arena arena = Arena.ofConfined()) {
            for (NativeEnvironment.Variable v : NativeEnvironment.VARIABLES) {
                MemorySegment value = (MemorySegment) getenv.invokeExact(arena.allocateFrom(v.name()));
                System.out.println(v.name() + "=" + (value.address() == 0 ? "(unset)"
                        : value.reinterpret(Long.MAX_VALUE).getString(0)));
            }
        }

        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment name = arena.allocateFrom("JDAT_NO_SUCH_VARIABLE");
                while (!stop.get()) {
                    MemorySegment _ = (MemorySegment) getenv.invokeExact(name);
                    reads.incrementAndGet();
                }
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        });
        while (reads.get() < 10_000) {
            Thread.onSpinWait();
        }
        List<String> rest = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            rest.add(args[i] + " available=" + byName.get(args[i]).info().available());
        }
        stop.set(true);
        reader.join();
        rest.forEach(System.out::println);
        System.out.println(watch.stop());
        System.out.println(shmNamesAcrossSafepoints(byName.get("ofi"), watch));
        System.out.println(watch.keptAgainstAReplacement());
        safepointsUnderACompiledLoop();
        System.out.println("done");
    }

    /**
     * {@return {@code shm names kept} when a shm IA opens with the JVM's handlers left in place and its names in
     * {@code /dev/shm} outlive the JVM's safepoints} libfabric shm's first endpoint installed a SIGSEGV handler that
     * unlinks every name of the process, and the first safepoint poll ran it: no new peer could then reach the IA.
     */
    private static String shmNamesAcrossSafepoints(DatProvider ofi, SignalWatch watch) throws Throwable {
        try (DatIa ia = ofi.open("ofi-shm-shm-rdm", "", 8)) {
            String replaced = watch.replacedNow();
            List<String> before = shmNames();
            safepointsUnderACompiledLoop();
            List<String> after = shmNames();
            return replaced.isEmpty() && !before.isEmpty() && before.equals(after) ? "shm names kept"
                    : "shm names " + before + " became " + after + ", handlers replaced by " + ia.name() + ": "
                            + replaced;
        }
    }

    private static List<String> shmNames() throws IOException {
        String prefix = ProcessHandle.current().pid() + ":";
        try (Stream<Path> names = Files.list(Path.of("/dev/shm"))) {
            return names.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix)).sorted().toList();
        }
    }

    /** Each safepoint makes the spinning thread's compiled poll fault on purpose, for the JVM's handler to take. */
    private static void safepointsUnderACompiledLoop() throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        Thread spinner = Thread.ofPlatform().daemon().start(() -> {
            long x = 0;
            while (!stop.get()) {
                x += System.identityHashCode(x) & 1;
            }
        });
        for (int i = 0; i < 100; i++) {
            System.gc();
            Thread.sleep(5);
        }
        stop.set(true);
        spinner.join();
    }

    /** Reads the handlers of the signals libraries take, without pause, from before the first load to the end. */
    private static final class SignalWatch {

        private static final int[] SIGNALS = {2, 4, 6, 7, 11, 15};
        private static final String[] NAMES = {"SIGINT", "SIGILL", "SIGABRT", "SIGBUS", "SIGSEGV", "SIGTERM"};

        private static final int SIGXFSZ = 25;

        private final MethodHandle sigaction;
        private final long[] jvm = new long[SIGNALS.length];
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Set<String> replaced = ConcurrentHashMap.newKeySet();
        private final Thread thread;

        @SuppressWarnings("restricted")
        SignalWatch(Linker linker) throws Throwable {
            sigaction = linker.downcallHandle(linker.defaultLookup().find("sigaction").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                            ValueLayout.ADDRESS));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment act = arena.allocate(256, 16);
                for (int i = 0; i < SIGNALS.length; i++) {
                    jvm[i] = handler(SIGNALS[i], act);
                }
            }
            thread = Thread.ofPlatform().daemon().start(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment act = arena.allocate(256, 16);
                    while (!stop.get()) {
                        addReplaced(act, replaced);
                    }
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
            });
        }

        /** {@return the handler of {@code signal}, read through {@code act}} */
        private long handler(int signal, MemorySegment act) throws Throwable {
            int _ = (int) sigaction.invokeExact(signal, MemorySegment.NULL, act);
            return act.get(ValueLayout.JAVA_LONG, 0);
        }

        /** Adds the names of the watched signals whose handler is not the JVM's now. */
        private void addReplaced(MemorySegment act, Collection<String> into) throws Throwable {
            for (int i = 0; i < SIGNALS.length; i++) {
                if (handler(SIGNALS[i], act) != jvm[i]) {
                    into.add(NAMES[i]);
                }
            }
        }

        /**
         * {@return how {@link NativeEnvironment#keepingSignals} left SIGXFSZ after a call that made it ignored (as
         * the JVM's own, harmless while it lasts): {@code guard restored SIGXFSZ} when its handler is back}
         */
        String keptAgainstAReplacement() throws Throwable {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment act = arena.allocate(256, 16);
                long jvm = handler(SIGXFSZ, act);
                MemorySegment ignore = arena.allocate(256, 16);
                ignore.set(ValueLayout.JAVA_LONG, 0, 1L); // SIG_IGN
                int rc = NativeEnvironment.keepingSignals("the probe", () -> {
                    try {
                        return (int) sigaction.invokeExact(SIGXFSZ, ignore, MemorySegment.NULL);
                    } catch (Throwable t) {
                        throw new IllegalStateException(t);
                    }
                });
                long after = handler(SIGXFSZ, act);
                return rc == 0 && after == jvm && jvm != 1L ? "guard restored SIGXFSZ"
                        : "guard left SIGXFSZ at " + Long.toHexString(after) + ", was " + Long.toHexString(jvm);
            }
        }

        /** {@return the names of the watched signals whose handler is not the JVM's now, comma-separated} */
        String replacedNow() throws Throwable {
            List<String> now = new ArrayList<>();
            try (Arena arena = Arena.ofConfined()) {
                addReplaced(arena.allocate(256, 16), now);
            }
            return String.join(", ", now);
        }

        String stop() throws InterruptedException {
            stop.set(true);
            thread.join();
            return replaced.isEmpty() ? "signals kept" : "signals replaced: " + new TreeSet<>(replaced);
        }
    }
}
