// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The C environment jDAT's native providers give the libraries they load: every variable any of them sets, set in
 * one call, once per process, before the first of those libraries loads.
 *
 * <p>Why all at once and first: glibc's {@code setenv} (2.36, Debian 12) grows {@code environ} with {@code realloc}
 * when it adds a name, which frees the array a {@code getenv} on another thread may be walking. Discovery runs every
 * provider's {@code info()} at the same time, and the libraries behind them read their environment while they start
 * (libdat2's and libibverbs' initialisers, libfabric's {@code fi_param_get}): a provider adding its name then killed
 * the JVM, SIGSEGV in {@code getenv} on the thread loading libdat2 while the ofi provider set
 * {@value #FI_MR_CACHE_MAX_COUNT}. So each of jDAT's native providers calls {@link #prepare} before it loads a
 * library; the first call sets every variable of {@link #VARIABLES} and later calls set nothing, so once any jDAT
 * library runs no name is ever added again. Replacing the value of a name already present writes one slot of the
 * array in place, which a concurrent {@code getenv} survives, but the first call makes even those writes.
 *
 * <p>A provider outside jDAT should not call {@code setenv} at run time at all, for the same reason: its users set
 * what its library needs before the JVM starts.
 */
public final class NativeEnvironment {

    /** The C signature of {@code int setenv(const char *name, const char *value, int overwrite)}. */
    public static final FunctionDescriptor SETENV = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);

    /** The libfabric parameter that sizes its registration cache, read once when the library initialises. */
    public static final String FI_MR_CACHE_MAX_COUNT = "FI_MR_CACHE_MAX_COUNT";

    /** The variable OFA's uDAPL providers read their log mask from when they load. */
    public static final String DAPL_DBG_TYPE = "DAPL_DBG_TYPE";

    /**
     * One variable and what {@code setenv} is asked to do with it.
     *
     * @param name the variable's name
     * @param value the value it is given
     * @param overwrite whether a value the user set is replaced ({@code setenv}'s third argument)
     */
    public record Variable(String name, String value, boolean overwrite) {

        /** Checks that nothing is null. */
        public Variable {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * Every variable jDAT's providers set, in the order they are set.
     * <ul>
     * <li>{@value #FI_MR_CACHE_MAX_COUNT}{@code =0}, whatever the user set, turns libfabric's registration cache off
     *     (on by default in its verbs provider, 1.17 {@code verbs_mr.c}). With the cache a {@code fi_mr_reg}
     *     registers the region with every remote access whatever it asked for ({@code vrb_mr_cache_add_region}) and
     *     {@code fi_close} keeps the registration alive: a peer could write where {@code dat_lmr_create} granted only
     *     reads, and reach an LMR after {@code dat_lmr_free} returned, which DAT forbids. No value of it keeps DAT's
     *     rules, so the user's is replaced.</li>
     * <li>{@value #DAPL_DBG_TYPE}{@code =0}, unless the user set it: OFA's providers log errors and warnings to
     *     standard output by default ("open_hca: ibv_get_device_list() failed" for every {@code dat.conf} entry
     *     without its device), which would interleave with what the Java program prints ({@code dat info --json}
     *     stops being JSON). Only the log changes; any mask the user set is kept.</li>
     * </ul>
     */
    public static final List<Variable> VARIABLES = List.of(
            new Variable(FI_MR_CACHE_MAX_COUNT, "0", true),
            new Variable(DAPL_DBG_TYPE, "0", false));

    private static final Object LOCK = new Object();
    private static boolean prepared;

    private NativeEnvironment() {
    }

    /**
     * Sets every variable of {@link #VARIABLES} the first time it is called in this process and does nothing later;
     * call it before loading a native library. The handle is asked for only on that first call (linking a downcall
     * spins classes, which every later library load would pay for nothing), and is made by the caller, whose module
     * has native access, so {@code dat.api} needs none.
     *
     * @param setenv gives a handle of type {@code (MemorySegment, MemorySegment, int)int} on libc's {@code setenv}
     *     ({@link #SETENV}), or {@code null} where the C library has none, which leaves the environment as it is
     */
    public static void prepare(Supplier<MethodHandle> setenv) {
        synchronized (LOCK) {
            if (prepared) {
                return;
            }
            MethodHandle handle = setenv.get();
            // The JVM's System.getenv copies environ the first time it is used; take that copy now, before the
            // array changes, so no Java thread reads environ while setenv below reallocates it.
            var _ = System.getenv();
            if (handle != null) {
                try (Arena arena = Arena.ofConfined()) {
                    for (Variable v : VARIABLES) {
                        int _ = (int) handle.invokeExact(arena.allocateFrom(v.name()), arena.allocateFrom(v.value()),
                                v.overwrite() ? 1 : 0);
                    }
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
            }
            prepared = true;
        }
    }
}
