// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.spi.NativeEnvironment;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.function.Supplier;

/**
 * Bindings to the exported functions of {@code libfabric.so.1}, named after them, and the constants of its headers
 * jDAT uses ({@code OfiLayoutOffsetTest} checks each against the headers).
 *
 * <p>libfabric exports only a handful of functions ({@code fi_getinfo}, {@code fi_freeinfo}, {@code fi_dupinfo},
 * {@code fi_fabric}, {@code fi_strerror}, {@code fi_version}); everything else in {@code rdma/fi_*.h} is
 * {@code static inline} over the ops tables of the objects, and {@link Fi} calls those tables. libfabric reports
 * errors as negative {@code FI_E*} return values, not through {@code errno}, so no call captures it.
 *
 * <p>Loaded by {@link #load(String)} only after the provider checked that its module has native access.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
public final class LibFabric {

    /** The soname this class binds. */
    public static final String LIBRARY = "libfabric.so.1";

    /** The fix named when the library is missing. */
    public static final String INSTALL_HINT = "install libfabric (apt install libfabric1)";

    /** The API version jDAT asks for: 1.17, what Debian 12's libfabric1 provides and the headers describe. */
    public static final int API_MAJOR = 1;
    /** The minor part of {@link #API_MAJOR}'s version. */
    public static final int API_MINOR = 17;

    // enum fi_ep_type
    /** {@code FI_EP_MSG}. */
    public static final int FI_EP_MSG = 1;
    /** {@code FI_EP_DGRAM}. */
    public static final int FI_EP_DGRAM = 2;
    /** {@code FI_EP_RDM}. */
    public static final int FI_EP_RDM = 3;

    // addr_format
    /** {@code FI_SOCKADDR_IN}. */
    public static final int FI_SOCKADDR_IN = 2;
    /** {@code FI_SOCKADDR_IN6}. */
    public static final int FI_SOCKADDR_IN6 = 3;
    /** {@code FI_ADDR_STR}: a provider-specific string, {@code fi_shm://name} on shm. */
    public static final int FI_ADDR_STR = 9;
    /** {@code AF_INET}. */
    public static final int AF_INET = 2;
    /** {@code AF_INET6}. */
    public static final int AF_INET6 = 10;

    // capability and operation flags (uint64_t)
    /** {@code FI_SHARED_CONTEXT}: {@code SIZE_MAX}, an {@code rx_ctx_cnt} asking for a shared receive context. */
    public static final long FI_SHARED_CONTEXT = -1L;
    /** {@code FI_MSG}. */
    public static final long FI_MSG = 1L << 1;
    /** {@code FI_RMA}. */
    public static final long FI_RMA = 1L << 2;
    /** {@code FI_TAGGED}. */
    public static final long FI_TAGGED = 1L << 3;
    /** {@code FI_READ}. */
    public static final long FI_READ = 1L << 8;
    /** {@code FI_WRITE}. */
    public static final long FI_WRITE = 1L << 9;
    /** {@code FI_RECV}. */
    public static final long FI_RECV = 1L << 10;
    /** {@code FI_SEND}, also {@code FI_TRANSMIT}. */
    public static final long FI_SEND = 1L << 11;
    /** {@code FI_REMOTE_READ}. */
    public static final long FI_REMOTE_READ = 1L << 12;
    /** {@code FI_REMOTE_WRITE}. */
    public static final long FI_REMOTE_WRITE = 1L << 13;
    /** {@code FI_REMOTE_CQ_DATA}: a send carries {@code data} to the receiver's completion. */
    public static final long FI_REMOTE_CQ_DATA = 1L << 17;
    /** {@code FI_FENCE}. */
    public static final long FI_FENCE = 1L << 21;
    /** {@code FI_DELIVERY_COMPLETE}. */
    public static final long FI_DELIVERY_COMPLETE = 1L << 28;
    /** {@code FI_INJECT}: the source buffer is copied before the call returns. */
    public static final long FI_INJECT = 1L << 25;
    /** {@code FI_COMPLETION}. */
    public static final long FI_COMPLETION = 1L << 24;
    /**
     * {@code FI_SELECTIVE_COMPLETION}, a CQ binding's flag: only the operations posted with {@link #FI_COMPLETION}
     * write a successful completion (a failure is written whatever the flags).
     */
    public static final long FI_SELECTIVE_COMPLETION = 1L << 59;
    /** {@code FI_DIRECTED_RECV}. */
    public static final long FI_DIRECTED_RECV = 1L << 59;
    /** {@code FI_SOURCE}. */
    public static final long FI_SOURCE = 1L << 57;
    /** {@code FI_CONTEXT} (mode). */
    public static final long FI_CONTEXT = 1L << 59;
    /** {@code FI_CONTEXT2} (mode). */
    public static final long FI_CONTEXT2 = 1L << 52;
    /** {@code FI_MSG_PREFIX} (mode). */
    public static final long FI_MSG_PREFIX = 1L << 58;
    /** {@code FI_RX_CQ_DATA} (mode). */
    public static final long FI_RX_CQ_DATA = 1L << 56;
    /** {@code FI_LOCAL_MR} (mode, pre-1.5 API). */
    public static final long FI_LOCAL_MR = 1L << 55;
    /** {@code FI_ORDER_RAW}. */
    public static final long FI_ORDER_RAW = 1L << 1;
    /** {@code FI_ORDER_WAW}. */
    public static final long FI_ORDER_WAW = 1L << 4;
    /** {@code FI_ORDER_WAS}. */
    public static final long FI_ORDER_WAS = 1L << 5;
    /** {@code FI_ORDER_SAS}. */
    public static final long FI_ORDER_SAS = 1L << 8;
    /** {@code FI_AV_UNSPEC}. */
    public static final int FI_AV_UNSPEC = 0;
    /** {@code FI_AV_MAP}. */
    public static final int FI_AV_MAP = 1;
    /** {@code FI_AV_TABLE}. */
    public static final int FI_AV_TABLE = 2;
    /** {@code FI_ADDR_NOTAVAIL}: what fi_av_insert writes for an address it could not insert. */
    public static final long FI_ADDR_NOTAVAIL = -1L;
    /** {@code FI_ADDR_UNSPEC}. */
    public static final long FI_ADDR_UNSPEC = -1L;

    // mr_mode bits (int)
    /** {@code FI_MR_LOCAL}. */
    public static final int FI_MR_LOCAL = 1 << 2;
    /** {@code FI_MR_RAW}. */
    public static final int FI_MR_RAW = 1 << 3;
    /** {@code FI_MR_VIRT_ADDR}. */
    public static final int FI_MR_VIRT_ADDR = 1 << 4;
    /** {@code FI_MR_ALLOCATED}. */
    public static final int FI_MR_ALLOCATED = 1 << 5;
    /** {@code FI_MR_PROV_KEY}. */
    public static final int FI_MR_PROV_KEY = 1 << 6;
    /** {@code FI_MR_MMU_NOTIFY}. */
    public static final int FI_MR_MMU_NOTIFY = 1 << 7;
    /** {@code FI_MR_RMA_EVENT}. */
    public static final int FI_MR_RMA_EVENT = 1 << 8;
    /** {@code FI_MR_ENDPOINT}. */
    public static final int FI_MR_ENDPOINT = 1 << 9;
    /** {@code FI_MR_HMEM}. */
    public static final int FI_MR_HMEM = 1 << 10;

    // enum fi_wait_obj, fi_cq_format, fi_threading
    /** {@code FI_WAIT_NONE}. */
    public static final int FI_WAIT_NONE = 0;
    /** {@code FI_WAIT_UNSPEC}. */
    public static final int FI_WAIT_UNSPEC = 1;
    /** {@code FI_WAIT_SET}. */
    public static final int FI_WAIT_SET = 2;
    /** {@code FI_WAIT_FD}. */
    public static final int FI_WAIT_FD = 3;
    /** {@code FI_WAIT_POLLFD}. */
    public static final int FI_WAIT_POLLFD = 6;
    /** {@code FI_CQ_FORMAT_DATA}. */
    public static final int FI_CQ_FORMAT_DATA = 3;
    /** {@code FI_THREAD_SAFE}. */
    public static final int FI_THREAD_SAFE = 1;

    // EQ events, control commands, options
    /** {@code FI_GETWAIT}. */
    public static final int FI_GETWAIT = 5;
    /** {@code FI_GETWAITOBJ}. */
    public static final int FI_GETWAITOBJ = 16;
    /** {@code FI_CONNREQ}. */
    public static final int FI_CONNREQ = 1;
    /** {@code FI_CONNECTED}. */
    public static final int FI_CONNECTED = 2;
    /** {@code FI_SHUTDOWN}. */
    public static final int FI_SHUTDOWN = 3;
    /** {@code FI_ENABLE}. */
    public static final int FI_ENABLE = 6;
    /** {@code FI_OPT_ENDPOINT}. */
    public static final int FI_OPT_ENDPOINT = 0;
    /** {@code FI_OPT_CM_DATA_SIZE}. */
    public static final int FI_OPT_CM_DATA_SIZE = 1;

    // errors (positive; calls return them negated)
    /** {@code FI_EIO}. */
    public static final int FI_EIO = 5;
    /** {@code FI_EAGAIN}. */
    public static final int FI_EAGAIN = 11;
    /** {@code FI_ENOMEM}. */
    public static final int FI_ENOMEM = 12;
    /** {@code FI_EACCES}. */
    public static final int FI_EACCES = 13;
    /** {@code FI_EBUSY}. */
    public static final int FI_EBUSY = 16;
    /** {@code FI_EINVAL}. */
    public static final int FI_EINVAL = 22;
    /** {@code FI_ENOSYS}. */
    public static final int FI_ENOSYS = 38;
    /** {@code FI_ENODATA}. */
    public static final int FI_ENODATA = 61;
    /** {@code FI_EMSGSIZE}. */
    public static final int FI_EMSGSIZE = 90;
    /** {@code FI_EOPNOTSUPP}. */
    public static final int FI_EOPNOTSUPP = 95;
    /** {@code FI_EADDRINUSE}. */
    public static final int FI_EADDRINUSE = 98;
    /** {@code FI_ECONNRESET}. */
    public static final int FI_ECONNRESET = 104;
    /** {@code FI_ECONNABORTED}. */
    public static final int FI_ECONNABORTED = 103;
    /** {@code FI_ESHUTDOWN}. */
    public static final int FI_ESHUTDOWN = 108;
    /** {@code FI_ETIMEDOUT}. */
    public static final int FI_ETIMEDOUT = 110;
    /** {@code FI_ECONNREFUSED}. */
    public static final int FI_ECONNREFUSED = 111;
    /** {@code FI_ECANCELED}. */
    public static final int FI_ECANCELED = 125;
    /** {@code FI_ENOENT}. */
    public static final int FI_ENOENT = 2;
    /** {@code FI_ENOTCONN}. */
    public static final int FI_ENOTCONN = 107;
    /** {@code FI_ETRUNC}. */
    public static final int FI_ETRUNC = 265;
    /** {@code FI_ETOOSMALL}. */
    public static final int FI_ETOOSMALL = 257;
    /** {@code FI_EAVAIL}. */
    public static final int FI_EAVAIL = 259;

    private static final Object LOCK = new Object();
    private static LibFabric loaded; // guarded by LOCK

    private final MethodHandle fiGetinfo;
    private final MethodHandle fiFreeinfo;
    private final MethodHandle fiDupinfo;
    private final MethodHandle fiFabric;
    private final MethodHandle fiStrerror;
    private final MethodHandle fiVersion;

    private LibFabric(SymbolLookup lookup, String name) throws LibraryUnavailableException {
        Linker linker = Linker.nativeLinker();
        fiGetinfo = find(linker, lookup, name, "fi_getinfo", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS,
                ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
        fiFreeinfo = find(linker, lookup, name, "fi_freeinfo", FunctionDescriptor.ofVoid(ADDRESS));
        fiDupinfo = find(linker, lookup, name, "fi_dupinfo", FunctionDescriptor.of(ADDRESS, ADDRESS));
        fiFabric = find(linker, lookup, name, "fi_fabric", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
                ADDRESS));
        fiStrerror = find(linker, lookup, name, "fi_strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        fiVersion = find(linker, lookup, name, "fi_version", FunctionDescriptor.of(JAVA_INT));
    }

    /**
     * Runs a libfabric call that may initialize providers (and load the libraries they link) with the JVM's signal
     * handlers kept ({@link NativeEnvironment#keepingSignals}).
     *
     * @param <T> the call's result
     * @param call the call
     * @return its result
     */
    public <T> T guarded(Supplier<T> call) {
        return NativeEnvironment.keepingSignals("libfabric", call);
    }

    private static MethodHandle find(Linker linker, SymbolLookup lookup, String lib, String function,
                                     FunctionDescriptor descriptor) throws LibraryUnavailableException {
        MemorySegment symbol = lookup.find(function).orElseThrow(() -> new LibraryUnavailableException(
                lib + " has no function " + function + ": " + INSTALL_HINT + " (1.17 or newer)", null));
        return linker.downcallHandle(symbol, descriptor);
    }

    /**
     * Loads the library once per JVM; later calls return the same bindings. Call it only after checking
     * {@link Module#isNativeAccessEnabled()}.
     *
     * @param library a soname or an absolute path
     * @return the bindings
     * @throws LibraryUnavailableException when the library or a function is missing; the message is the fix
     */
    public static LibFabric load(String library) throws LibraryUnavailableException {
        synchronized (LOCK) {
            if (loaded == null) {
                // FI_MR_CACHE_MAX_COUNT=0 among the variables set first: libfabric's registration cache breaks
                // DAT's access rules. The libraries libfabric links run their constructors (libinfinipath's installs
                // signal handlers).
                SymbolLookup lookup;
                try {
                    lookup = NativeEnvironment.load(library, (function, signature) -> Linker.nativeLinker()
                            .defaultLookup().find(function)
                            .map(f -> Linker.nativeLinker().downcallHandle(f, signature)).orElse(null),
                            name -> SymbolLookup.libraryLookup(name, Arena.global()));
                } catch (IllegalArgumentException | IllegalCallerException e) {
                    throw new LibraryUnavailableException(library + " not found: " + INSTALL_HINT, e);
                }
                loaded = new LibFabric(lookup, library);
            }
            return loaded;
        }
    }

    /**
     * {@return {@code FI_VERSION(major, minor)}}
     *
     * @param major the major version
     * @param minor the minor version
     */
    public static int version(int major, int minor) {
        return major << 16 | minor;
    }

    /**
     * {@return {@code fi_version()}: the library's API version}
     */
    public int fi_version() {
        return guarded(() -> {
            try {
                return (int) fiVersion.invokeExact();
            } catch (Throwable t) {
                throw unexpected(t);
            }
        });
    }

    /**
     * {@code fi_getinfo}.
     *
     * @param version {@link #version}
     * @param node a host name or address, or {@code NULL}
     * @param service a port, or {@code NULL}
     * @param flags for example {@link #FI_SOURCE}
     * @param hints an {@code fi_info} from {@link #fi_allocinfo()}, or {@code NULL}
     * @param info a pointer-sized segment that receives the list
     * @return 0, or a negative {@code FI_E*} code ({@code -FI_ENODATA} when nothing matches)
     */
    public int fi_getinfo(int version, MemorySegment node, MemorySegment service, long flags, MemorySegment hints,
                          MemorySegment info) {
        return guarded(() -> {
            try {
                return (int) fiGetinfo.invokeExact(version, node, service, flags, hints, info);
            } catch (Throwable t) {
                throw unexpected(t);
            }
        });
    }

    /**
     * {@code fi_freeinfo}.
     *
     * @param info a list from {@link #fi_getinfo} or {@link #fi_dupinfo}
     */
    public void fi_freeinfo(MemorySegment info) {
        if (info.address() == 0) {
            return;
        }
        try {
            fiFreeinfo.invokeExact(info);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@return a deep copy of one {@code fi_info} (not the rest of its list), sized to {@link FiInfo#LAYOUT}}
     *
     * @param info an entry, or {@code NULL} for an empty one ({@code fi_allocinfo})
     */
    public MemorySegment fi_dupinfo(MemorySegment info) {
        MemorySegment copy;
        try {
            copy = (MemorySegment) fiDupinfo.invokeExact(info);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        if (copy.address() == 0) {
            throw new FiException("fi_dupinfo", FI_ENOMEM, "out of memory");
        }
        return copy.reinterpret(FiInfo.SIZEOF);
    }

    /**
     * {@return {@code fi_allocinfo()}: an empty {@code fi_info} with its attribute structs, for hints}
     */
    public MemorySegment fi_allocinfo() {
        return fi_dupinfo(MemorySegment.NULL);
    }

    /**
     * {@return the open {@code fid_fabric}, sized}
     *
     * @param attr the {@code fabric_attr} of an {@code fi_info}
     * @param out a pointer-sized segment for the result
     */
    public MemorySegment fi_fabric(MemorySegment attr, MemorySegment out) {
        int rc = guarded(() -> {
            try {
                return (int) fiFabric.invokeExact(attr, out, MemorySegment.NULL);
            } catch (Throwable t) {
                throw unexpected(t);
            }
        });
        check("fi_fabric", rc);
        return out.get(ADDRESS, 0).reinterpret(FidFabric.SIZEOF);
    }

    /**
     * {@return {@code fi_strerror(errnum)}}
     *
     * @param errnum a positive FI_E* code
     */
    public String fi_strerror(int errnum) {
        try {
            MemorySegment s = (MemorySegment) fiStrerror.invokeExact(errnum);
            return s.address() == 0 ? "error " + errnum : s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Throws {@link FiException} for a negative return value.
     *
     * @param call the C call
     * @param rc its return value
     */
    public void check(String call, long rc) {
        if (rc < 0) {
            throw new FiException(call, (int) -rc, fi_strerror((int) -rc));
        }
    }

    static IllegalStateException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("a libfabric downcall threw " + t, t);
    }
}
