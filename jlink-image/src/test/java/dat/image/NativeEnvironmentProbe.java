// SPDX-License-Identifier: Apache-2.0
package dat.image;

import dat.spi.DatProvider;
import dat.spi.NativeEnvironment;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run by {@code DatImageIT} in the image's JVM: the providers named on the command line load their libraries in that
 * order, the first alone; then a thread reads the C environment without pause, as libdat2's, libibverbs' and
 * libfabric's own code does, while the others load. Prints each of {@link NativeEnvironment#VARIABLES} as libc's
 * {@code getenv} sees it once the first has loaded, then {@code done}. A provider that adds a variable after another
 * library is running makes glibc free the {@code environ} the reader walks: this JVM then dies of SIGSEGV in
 * {@code getenv}, as {@code dat perf serve} once did on the thread loading libdat2.
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
        System.out.println("done");
    }
}
