// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What jDAT's native providers give the libraries they load, and keep from them: the C environment those libraries
 * read as they start, set in one call before the first of them loads; and the JVM's signal handlers, put back after
 * any call that may load one.
 *
 * <p>Why the environment all at once and first: glibc's {@code setenv} (2.36, Debian 12) grows {@code environ} with
 * {@code realloc} when it adds a name, which frees the array a {@code getenv} on another thread may be walking.
 * Discovery runs every provider's {@code info()} at the same time, and the libraries behind them read their
 * environment while they start (libdat2's and libibverbs' initialisers, libfabric's {@code fi_param_get}): a provider
 * adding its name then killed the JVM, SIGSEGV in {@code getenv} on the thread loading libdat2 while the ofi provider
 * set {@value #FI_MR_CACHE_MAX_COUNT}. So each of jDAT's native providers calls {@link #prepare} before it loads a
 * library; the first call sets every variable of {@link #VARIABLES} and later calls set nothing, so once any jDAT
 * library runs no name is ever added again. Replacing the value of a name already present writes one slot of the
 * array in place, which a concurrent {@code getenv} survives, but the first call makes even those writes.
 *
 * <p>Why the signal handlers: HotSpot takes SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGTRAP as part of running Java
 * (a compiled loop's safepoint poll faults on purpose, so do implicit null checks), and SIGHUP, SIGINT, SIGTERM and
 * SIGQUIT for shutdown hooks and thread dumps. A C library that installs a handler of its own when it loads or
 * first runs (libinfinipath's crash backtrace; libfabric shm's first endpoint, whose handler unlinks every shm name
 * of the process before it hands the signal on) turns the JVM's next safepoint into the end of the process, or into
 * damage. {@link #keepingSignals} runs a
 * call that may load such a library and puts back what it replaced. It cannot close the window while that call runs,
 * so the variables that keep the known libraries' handlers out are among {@link #VARIABLES}.
 *
 * <p>A provider outside jDAT should not call {@code setenv} at run time at all, for the same reason: its users set
 * what its library needs before the JVM starts. It should run its library loads inside {@link #keepingSignals}.
 */
public final class NativeEnvironment {

    /** The C signature of {@code int setenv(const char *name, const char *value, int overwrite)}. */
    public static final FunctionDescriptor SETENV = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT);

    /** The C signature of {@code int sigaction(int signum, const struct sigaction *act, struct sigaction *oldact)}. */
    public static final FunctionDescriptor SIGACTION = FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS);

    /** The libfabric parameter that sizes its registration cache, read once when the library initialises. */
    public static final String FI_MR_CACHE_MAX_COUNT = "FI_MR_CACHE_MAX_COUNT";

    /** The variable OFA's uDAPL providers read their log mask from when they load. */
    public static final String DAPL_DBG_TYPE = "DAPL_DBG_TYPE";

    /** The variable whose presence keeps libinfinipath's constructor from installing its signal handlers. */
    public static final String IPATH_NO_BACKTRACE = "IPATH_NO_BACKTRACE";

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
     * <li>{@value #IPATH_NO_BACKTRACE}{@code =1}, unless the user set it (only its presence counts): libfabric1 links
     *     libpsm_infinipath, whose libinfinipath's constructor otherwise replaces the handlers of SIGSEGV, SIGBUS,
     *     SIGILL, SIGABRT, SIGINT and SIGTERM with one that prints a backtrace and calls {@code exit(1)}
     *     ({@code ipath_debug.c}). {@link #keepingSignals} puts them back once libfabric has loaded, but a Java
     *     thread at a safepoint poll while it loads ended the JVM ({@code dat info --json}, "java terminated with
     *     signal 11").</li>
     * </ul>
     */
    public static final List<Variable> VARIABLES = List.of(
            new Variable(FI_MR_CACHE_MAX_COUNT, "0", true),
            new Variable(DAPL_DBG_TYPE, "0", false),
            new Variable(IPATH_NO_BACKTRACE, "1", false));

    /**
     * The signals whose handlers {@link #keepingSignals} keeps, by their Linux numbers (the same on x86_64 and
     * aarch64), with their names for the log.
     */
    private static final int[] SIGNALS = {1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 15, 25};
    private static final String[] SIGNAL_NAMES = {"SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
        "SIGBUS", "SIGFPE", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGTERM", "SIGXFSZ"};
    /**
     * Larger than {@code struct sigaction} on every Linux ABI (152 bytes on x86_64 and aarch64), kept and given back
     * whole. Only its first member, the handler, is compared: glibc fills the rest of {@code sa_mask} from its own
     * stack, so two reads of one disposition differ past the mask's first word.
     */
    private static final long SIGACTION_BYTES = 256;

    private static final Object LOCK = new Object();
    private static boolean prepared; // guarded by LOCK
    private static volatile MethodHandle sigaction;
    /**
     * The handlers as they were before the first jDAT library loaded, {@link #SIGNALS}' order; written once under
     * {@link #LOCK} before {@link #sigaction} is published.
     */
    private static MemorySegment jvmHandlers;

    /**
     * Finds functions of the C library: implemented by the provider, whose module has native access, so
     * {@code dat.api} needs none.
     */
    @FunctionalInterface
    public interface Libc {

        /**
         * {@return a downcall handle on the C library's function, or {@code null} where it has none}
         *
         * @param function its name
         * @param signature its C signature ({@link #SETENV}, {@link #SIGACTION})
         */
        MethodHandle find(String function, FunctionDescriptor signature);
    }

    private NativeEnvironment() {
    }

    /**
     * Sets every variable of {@link #VARIABLES} the first time it is called in this process and does nothing later;
     * call it before loading a native library. The C library's functions are asked for only on that first call
     * (linking a downcall spins classes, which every later library load would pay for nothing).
     *
     * @param libc finds {@code setenv} and {@code sigaction}; where it finds none, the environment stays as it is
     *     and {@link #keepingSignals} only runs its call
     */
    public static void prepare(Libc libc) {
        synchronized (LOCK) {
            if (prepared) {
                return;
            }
            MethodHandle setenv = libc.find("setenv", SETENV);
            MethodHandle handle = libc.find("sigaction", SIGACTION);
            if (handle != null) {
                jvmHandlers = Arena.global().allocate(SIGACTION_BYTES * SIGNALS.length, 16);
                for (int i = 0; i < SIGNALS.length; i++) {
                    sigaction(handle, SIGNALS[i], MemorySegment.NULL, slot(jvmHandlers, i));
                }
                sigaction = handle;
            }
            // The JVM's System.getenv copies environ the first time it is used; take that copy now, before the
            // array changes, so no Java thread reads environ while setenv below reallocates it.
            var _ = System.getenv();
            if (setenv != null) {
                try (Arena arena = Arena.ofConfined()) {
                    for (Variable v : VARIABLES) {
                        int _ = (int) setenv.invokeExact(arena.allocateFrom(v.name()), arena.allocateFrom(v.value()),
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

    /**
     * Loads a native library as each of jDAT's providers must: {@link #prepare} first, then the load inside
     * {@link #keepingSignals}, since loading runs the constructors of every library it links.
     *
     * @param library a soname or a path
     * @param libc for {@link #prepare}
     * @param loader the provider's {@code SymbolLookup.libraryLookup}, restricted and so called from its module
     * @return the library's symbols
     * @throws IllegalArgumentException when the dynamic loader cannot find or load it, as {@code loader} throws it
     */
    public static SymbolLookup load(String library, Libc libc, Function<String, SymbolLookup> loader) {
        prepare(libc);
        return keepingSignals(library, () -> loader.apply(library));
    }

    /**
     * Runs a call that may load a native library (a {@code dlopen}, or a first call that loads a library's plugins)
     * and puts back every signal handler it replaced, logging which at {@code DEBUG}; call {@link #prepare} first.
     *
     * @param <T> the call's result
     * @param what the call, for the log: the library or function
     * @param call the call
     * @return its result
     */
    public static <T> T keepingSignals(String what, Supplier<T> call) {
        MethodHandle handle = sigaction;
        if (handle == null) {
            return call.get();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment kept = arena.allocate(SIGACTION_BYTES * SIGNALS.length, 16);
            MemorySegment now = arena.allocate(SIGACTION_BYTES, 16);
            for (int i = 0; i < SIGNALS.length; i++) {
                sigaction(handle, SIGNALS[i], MemorySegment.NULL, slot(kept, i));
            }
            try {
                return call.get();
            } finally {
                StringJoiner replaced = new StringJoiner(", ");
                for (int i = 0; i < SIGNALS.length; i++) {
                    sigaction(handle, SIGNALS[i], MemorySegment.NULL, now);
                    long was = handler(slot(kept, i));
                    long is = handler(now);
                    // What this call found may be another call's replacement, made while both ran (discovery loads
                    // libraries on several threads): that one puts the JVM's back, and this one never puts back a
                    // handler that is not the JVM's.
                    if (is != was && !(isJvms(is) && !isJvms(was))) {
                        sigaction(handle, SIGNALS[i], isJvms(was) ? slot(kept, i) : slot(jvmHandlers, i),
                                MemorySegment.NULL);
                        replaced.add(SIGNAL_NAMES[i]);
                    }
                }
                if (replaced.length() > 0) {
                    // Handled, with nothing left for the user to do: a vendor looking for it turns the level up.
                    System.getLogger(NativeEnvironment.class.getName()).log(System.Logger.Level.DEBUG,
                            "{0} replaced the JVM''s handlers of {1}; jDAT put them back (the JVM takes these "
                                    + "signals to run Java: a library''s own handler ends it at its next safepoint)",
                            what, replaced);
                }
            }
        }
    }

    private static long handler(MemorySegment action) {
        return action.get(ADDRESS, 0).address();
    }

    /**
     * {@return whether a handler is the default, ignore, or one the JVM had in place before any jDAT library loaded}
     * Java code may move a signal among those ({@code jdk.internal.misc.Signal} installs the one user handler).
     */
    private static boolean isJvms(long handler) {
        if (handler == 0 || handler == 1) { // SIG_DFL, SIG_IGN
            return true;
        }
        for (int i = 0; i < SIGNALS.length; i++) {
            if (handler(slot(jvmHandlers, i)) == handler) {
                return true;
            }
        }
        return false;
    }

    private static MemorySegment slot(MemorySegment kept, int i) {
        return kept.asSlice(i * SIGACTION_BYTES, SIGACTION_BYTES);
    }

    private static void sigaction(MethodHandle handle, int signal, MemorySegment act, MemorySegment old) {
        int rc;
        try {
            rc = (int) handle.invokeExact(signal, act, old);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (rc != 0) {
            throw new IllegalStateException("sigaction(" + signal + ") failed");
        }
    }
}
