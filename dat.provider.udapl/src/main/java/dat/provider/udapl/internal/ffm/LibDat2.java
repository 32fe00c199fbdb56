// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal.ffm;

import static dat.provider.udapl.internal.ffm.CStruct.C_INT;
import static dat.provider.udapl.internal.ffm.CStruct.C_LONG;
import static dat.provider.udapl.internal.ffm.CStruct.C_POINTER;

import dat.spi.NativeEnvironment;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exported functions of OFA's {@code libdat2.so.2} (DAT 2.0) the bridge calls. Each method is the C call
 * and returns its {@code DAT_RETURN}; arguments are passed as they are, so callers own every check that keeps
 * dead or foreign memory away from C.
 *
 * <p>libdat2 reads its static registry ({@code DAT_OVERRIDE}, else {@code /etc/dat.conf}) once, when it is
 * loaded, from the process environment.
 */
// Restricted methods on purpose: reached only after UdaplProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
public final class LibDat2 {

    /** The soname the bridge loads. */
    public static final String SONAME = "libdat2.so.2";
    /** How to get it. */
    public static final String INSTALL_HINT = "install OFA uDAPL (apt install libdapl2)";

    /** {@code DAT_VERSION_MAJOR}, {@code DAT_VERSION_MINOR} of the headers the bridge is laid out after. */
    public static final int DAT_VERSION_MAJOR = 2;
    /** See {@link #DAT_VERSION_MAJOR}. */
    public static final int DAT_VERSION_MINOR = 0;
    /** {@code DAT_TRUE}. */
    public static final int DAT_TRUE = 1;
    /** {@code DAT_FALSE}. */
    public static final int DAT_FALSE = 0;
    /** {@code DAT_CLOSE_ABRUPT_FLAG}. */
    public static final int DAT_CLOSE_ABRUPT_FLAG = 0;
    /** {@code DAT_CLOSE_GRACEFUL_FLAG}. */
    public static final int DAT_CLOSE_GRACEFUL_FLAG = 1;

    /**
     * {@code DAT_REGION_DESCRIPTION} passed by value: a 16-byte union ({@code for_va}, {@code for_lmr_handle},
     * {@code for_shared_memory}) the System V ABI passes in two integer registers, as this two-member struct.
     */
    public static final StructLayout REGION_BY_VALUE = CStruct.of(C_POINTER.withName("for_va"),
            C_POINTER.withName("shared_memory_id"));
    /** {@code DAT_OS_WAIT_PROXY_AGENT} passed by value: {@code instance_data} and {@code proxy_agent_func}. */
    public static final StructLayout AGENT_BY_VALUE = CStruct.of(C_POINTER.withName("instance_data"),
            C_POINTER.withName("proxy_agent_func"));

    private final Downcall listProviders;
    private final Downcall iaOpenv;
    private final Downcall iaClose;
    private final Downcall iaQuery;
    private final Downcall strerror;
    private final Downcall pzCreate;
    private final Downcall pzFree;
    private final Downcall pzQuery;
    private final Downcall lmrCreate;
    private final Downcall lmrFree;
    private final Downcall lmrQuery;
    private final Downcall rmrCreate;
    private final Downcall rmrFree;
    private final Downcall rmrQuery;
    private final Downcall rmrBind;
    private final Downcall evdCreate;
    private final Downcall evdFree;
    private final Downcall evdQuery;
    private final Downcall evdResize;
    private final Downcall evdModifyCno;
    private final Downcall evdPostSe;
    private final Downcall evdDequeue;
    private final Downcall evdWait;
    private final Downcall evdEnable;
    private final Downcall evdDisable;
    private final Downcall evdSetUnwaitable;
    private final Downcall evdClearUnwaitable;
    private final Downcall cnoCreate;
    private final Downcall cnoFree;
    private final Downcall cnoWait;
    private final Downcall cnoModifyAgent;
    private final Downcall cnoQuery;
    private final Downcall epCreate;
    private final Downcall epFree;
    private final Downcall epQuery;
    private final Downcall epModify;
    private final Downcall epConnect;
    private final Downcall epDupConnect;
    private final Downcall epDisconnect;
    private final Downcall epReset;
    private final Downcall epGetStatus;
    private final Downcall epPostSend;
    private final Downcall epPostRecv;
    private final Downcall epPostRdmaRead;
    private final Downcall epPostRdmaWrite;
    private final Downcall pspCreate;
    private final Downcall pspCreateAny;
    private final Downcall pspFree;
    private final Downcall pspQuery;
    private final Downcall rspCreate;
    private final Downcall rspFree;
    private final Downcall rspQuery;
    private final Downcall crAccept;
    private final Downcall crReject;
    private final Downcall crQuery;
    private final Downcall crHandoff;

    private LibDat2(SymbolLookup lookup) throws LibraryUnavailableException {
        listProviders = find(lookup, "dat_registry_list_providers",
                FunctionDescriptor.of(C_INT, C_INT, C_POINTER, C_POINTER));
        iaOpenv = find(lookup, "dat_ia_openv", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER,
                C_POINTER, C_INT, C_INT, C_INT));
        iaClose = find(lookup, "dat_ia_close", FunctionDescriptor.of(C_INT, C_POINTER, C_INT));
        iaQuery = find(lookup, "dat_ia_query", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_LONG,
                C_POINTER, C_LONG, C_POINTER));
        strerror = find(lookup, "dat_strerror", FunctionDescriptor.of(C_INT, C_INT, C_POINTER, C_POINTER));
        pzCreate = find(lookup, "dat_pz_create", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER));
        pzFree = find(lookup, "dat_pz_free", FunctionDescriptor.of(C_INT, C_POINTER));
        pzQuery = find(lookup, "dat_pz_query", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER));
        lmrCreate = find(lookup, "dat_lmr_create", FunctionDescriptor.of(C_INT, C_POINTER, C_INT,
                REGION_BY_VALUE, C_LONG, C_POINTER, C_INT, C_INT, C_POINTER, C_POINTER, C_POINTER, C_POINTER,
                C_POINTER));
        lmrFree = find(lookup, "dat_lmr_free", FunctionDescriptor.of(C_INT, C_POINTER));
        lmrQuery = find(lookup, "dat_lmr_query", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER));
        rmrCreate = find(lookup, "dat_rmr_create", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER));
        rmrFree = find(lookup, "dat_rmr_free", FunctionDescriptor.of(C_INT, C_POINTER));
        rmrQuery = find(lookup, "dat_rmr_query", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER));
        rmrBind = find(lookup, "dat_rmr_bind", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER,
                C_INT, C_INT, C_POINTER, C_LONG, C_INT, C_POINTER));
        evdCreate = find(lookup, "dat_evd_create", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER,
                C_INT, C_POINTER));
        evdFree = find(lookup, "dat_evd_free", FunctionDescriptor.of(C_INT, C_POINTER));
        evdQuery = find(lookup, "dat_evd_query", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER));
        evdResize = find(lookup, "dat_evd_resize", FunctionDescriptor.of(C_INT, C_POINTER, C_INT));
        evdModifyCno = find(lookup, "dat_evd_modify_cno", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER));
        evdPostSe = find(lookup, "dat_evd_post_se", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER));
        evdDequeue = find(lookup, "dat_evd_dequeue", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER));
        evdWait = find(lookup, "dat_evd_wait", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_INT, C_POINTER,
                C_POINTER));
        evdEnable = find(lookup, "dat_evd_enable", FunctionDescriptor.of(C_INT, C_POINTER));
        evdDisable = find(lookup, "dat_evd_disable", FunctionDescriptor.of(C_INT, C_POINTER));
        evdSetUnwaitable = find(lookup, "dat_evd_set_unwaitable", FunctionDescriptor.of(C_INT, C_POINTER));
        evdClearUnwaitable = find(lookup, "dat_evd_clear_unwaitable", FunctionDescriptor.of(C_INT, C_POINTER));
        cnoCreate = find(lookup, "dat_cno_create", FunctionDescriptor.of(C_INT, C_POINTER, AGENT_BY_VALUE,
                C_POINTER));
        cnoFree = find(lookup, "dat_cno_free", FunctionDescriptor.of(C_INT, C_POINTER));
        cnoWait = find(lookup, "dat_cno_wait", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER));
        cnoModifyAgent = find(lookup, "dat_cno_modify_agent", FunctionDescriptor.of(C_INT, C_POINTER,
                AGENT_BY_VALUE));
        cnoQuery = find(lookup, "dat_cno_query", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER));
        epCreate = find(lookup, "dat_ep_create", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER,
                C_POINTER, C_POINTER, C_POINTER, C_POINTER));
        epFree = find(lookup, "dat_ep_free", FunctionDescriptor.of(C_INT, C_POINTER));
        epQuery = find(lookup, "dat_ep_query", FunctionDescriptor.of(C_INT, C_POINTER, C_LONG, C_POINTER));
        epModify = find(lookup, "dat_ep_modify", FunctionDescriptor.of(C_INT, C_POINTER, C_LONG, C_POINTER));
        epConnect = find(lookup, "dat_ep_connect", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_LONG,
                C_INT, C_INT, C_POINTER, C_INT, C_INT));
        epDupConnect = find(lookup, "dat_ep_dup_connect", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER,
                C_INT, C_INT, C_POINTER, C_INT));
        epDisconnect = find(lookup, "dat_ep_disconnect", FunctionDescriptor.of(C_INT, C_POINTER, C_INT));
        epReset = find(lookup, "dat_ep_reset", FunctionDescriptor.of(C_INT, C_POINTER));
        epGetStatus = find(lookup, "dat_ep_get_status", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER,
                C_POINTER, C_POINTER));
        epPostSend = find(lookup, "dat_ep_post_send", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER,
                C_LONG, C_INT));
        epPostRecv = find(lookup, "dat_ep_post_recv", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER,
                C_LONG, C_INT));
        epPostRdmaRead = find(lookup, "dat_ep_post_rdma_read", FunctionDescriptor.of(C_INT, C_POINTER, C_INT,
                C_POINTER, C_LONG, C_POINTER, C_INT));
        epPostRdmaWrite = find(lookup, "dat_ep_post_rdma_write", FunctionDescriptor.of(C_INT, C_POINTER, C_INT,
                C_POINTER, C_LONG, C_POINTER, C_INT));
        pspCreate = find(lookup, "dat_psp_create", FunctionDescriptor.of(C_INT, C_POINTER, C_LONG, C_POINTER,
                C_INT, C_POINTER));
        pspCreateAny = find(lookup, "dat_psp_create_any", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER,
                C_POINTER, C_INT, C_POINTER));
        pspFree = find(lookup, "dat_psp_free", FunctionDescriptor.of(C_INT, C_POINTER));
        pspQuery = find(lookup, "dat_psp_query", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER));
        rspCreate = find(lookup, "dat_rsp_create", FunctionDescriptor.of(C_INT, C_POINTER, C_LONG, C_POINTER,
                C_POINTER, C_POINTER));
        rspFree = find(lookup, "dat_rsp_free", FunctionDescriptor.of(C_INT, C_POINTER));
        rspQuery = find(lookup, "dat_rsp_query", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER));
        crAccept = find(lookup, "dat_cr_accept", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT,
                C_POINTER));
        crReject = find(lookup, "dat_cr_reject", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER));
        crQuery = find(lookup, "dat_cr_query", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER));
        crHandoff = find(lookup, "dat_cr_handoff", FunctionDescriptor.of(C_INT, C_POINTER, C_LONG));
    }

    /**
     * Loads the library.
     *
     * @param soname {@value #SONAME}, or another name or path (tests)
     * @return the bound functions
     * @throws LibraryUnavailableException when it does not load or lacks a function, with the fix
     */
    public static LibDat2 load(String soname) throws LibraryUnavailableException {
        // DAPL_DBG_TYPE=0 among the variables set first, unless the user set it: OFA's providers log to stdout.
        SymbolLookup lookup;
        try {
            lookup = NativeEnvironment.load(soname, (function, signature) -> Linker.nativeLinker().defaultLookup()
                    .find(function).map(f -> Linker.nativeLinker().downcallHandle(f, signature)).orElse(null),
                    name -> SymbolLookup.libraryLookup(name, Arena.global()));
        } catch (IllegalArgumentException | IllegalCallerException e) {
            throw new LibraryUnavailableException(soname + " not found: " + INSTALL_HINT, e);
        }
        LibDat2 lib = new LibDat2(lookup);
        makeGlobal(soname);
        return lib;
    }

    /** {@code RTLD_NOW}. */
    static final int RTLD_NOW = 0x2;
    /** {@code RTLD_NOLOAD}. */
    static final int RTLD_NOLOAD = 0x4;
    /** {@code RTLD_GLOBAL}. */
    static final int RTLD_GLOBAL = 0x100;

    /**
     * Promotes the loaded libdat2 to the global symbol scope. The C providers libdat2 {@code dlopen()}s
     * ({@code libdaplofa.so.2} ...) leave {@code dats_get_ia_handle}, {@code dat_registry_add_provider} and
     * {@code dat_registry_remove_provider} undefined, for the program's libdat2 to provide: a C program links
     * libdat2, so its symbols are global, but {@link SymbolLookup#libraryLookup} loads with {@code RTLD_LOCAL},
     * and every provider then fails to load ("undefined symbol: dats_get_ia_handle"), which libdat2 reports as
     * {@code DAT_PROVIDER_NOT_FOUND/DAT_NAME_NOT_REGISTERED}. {@code dlopen(RTLD_NOLOAD | RTLD_GLOBAL)} of the
     * library already loaded changes only its scope.
     */
    private static void makeGlobal(String soname) throws LibraryUnavailableException {
        Linker linker = Linker.nativeLinker();
        MemorySegment dlopen = linker.defaultLookup().find("dlopen").orElseThrow(() -> new LibraryUnavailableException(
                "the C library has no dlopen, needed to give " + soname + " global scope", null));
        MethodHandle mh = linker.downcallHandle(dlopen, FunctionDescriptor.of(C_POINTER, C_POINTER, C_INT));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment handle = (MemorySegment) mh.invokeExact(arena.allocateFrom(soname),
                    RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
            if (handle.address() == 0) {
                throw new LibraryUnavailableException("dlopen(" + soname + ", RTLD_NOLOAD | RTLD_GLOBAL) failed: the"
                        + " C providers it loads could not find its symbols", null);
            }
        } catch (LibraryUnavailableException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static Downcall find(SymbolLookup lookup, String name, FunctionDescriptor fd)
            throws LibraryUnavailableException {
        MemorySegment symbol = lookup.find(name).orElseThrow(() -> new LibraryUnavailableException(
                SONAME + " has no function " + name + ": not a DAT 2.0 registry; " + INSTALL_HINT, null));
        return new Downcall(name, symbol, fd);
    }

    /** {@return the C functions linked so far in this JVM, for tests} */
    public static Set<String> linked() {
        return Set.copyOf(LINKED);
    }

    /** The functions linked so far in this JVM: discovery must link only the few it calls. */
    private static final Set<String> LINKED = ConcurrentHashMap.newKeySet();

    /**
     * A function {@link #load} found, linked at its first call: linking makes a downcall stub (classes spun at run
     * time, outside the image's AOT cache), and discovery, which opens and queries IAs, would otherwise pay at every
     * {@code dat} start for the 50-odd functions of the data path too. Loading still fails at once on a library that
     * lacks one.
     */
    private static final class Downcall {
        private final String name;
        private final MemorySegment symbol;
        private final FunctionDescriptor descriptor;
        /** Racing first calls may each link; either handle is the same function, and a handle is immutable. */
        private volatile MethodHandle handle;

        Downcall(String name, MemorySegment symbol, FunctionDescriptor descriptor) {
            this.name = name;
            this.symbol = symbol;
            this.descriptor = descriptor;
        }

        MethodHandle handle() {
            MethodHandle h = handle;
            if (h == null) {
                h = Linker.nativeLinker().downcallHandle(symbol, descriptor);
                LINKED.add(name);
                handle = h;
            }
            return h;
        }
    }

    /**
     * {@code dat_registry_list_providers(max_to_return, entries_returned, dat_provider_list)}.
     *
     * @param maxToReturn capacity of the list
     * @param entriesReturned an {@code int} the count is written to
     * @param providerList {@code maxToReturn} pointers, each to a {@code DAT_PROVIDER_INFO} to fill
     * @return the {@code DAT_RETURN}
     */
    public int registryListProviders(int maxToReturn, MemorySegment entriesReturned, MemorySegment providerList) {
        try {
            return (int) listProviders.handle().invokeExact(maxToReturn, entriesReturned, providerList);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ia_openv(name, async_evd_qlen, async_evd_handle, ia_handle, dapl_major, dapl_minor,
     * thread_safety)}.
     *
     * @param name the IA name, a C string
     * @param asyncEvdQlen the async EVD's minimum length
     * @param asyncEvdHandle in: {@code DAT_HANDLE_NULL} to have one created; out: the async EVD
     * @param iaHandle out: the IA handle
     * @param threadSafety {@link #DAT_TRUE} for a thread-safe provider
     * @return the {@code DAT_RETURN}
     */
    public int iaOpenv(MemorySegment name, int asyncEvdQlen, MemorySegment asyncEvdHandle, MemorySegment iaHandle,
                       int threadSafety) {
        // An entry's first open dlopen()s its C provider, and with it whatever that library links.
        return NativeEnvironment.keepingSignals("dat_ia_openv", () -> {
            try {
                return (int) iaOpenv.handle().invokeExact(name, asyncEvdQlen, asyncEvdHandle, iaHandle,
                        DAT_VERSION_MAJOR, DAT_VERSION_MINOR, threadSafety);
            } catch (Throwable t) {
                throw rethrow(t);
            }
        });
    }

    /**
     * {@code dat_ia_close(ia_handle, close_flags)}.
     *
     * @param ia the IA handle
     * @param flags {@link #DAT_CLOSE_ABRUPT_FLAG} or {@link #DAT_CLOSE_GRACEFUL_FLAG}
     * @return the {@code DAT_RETURN}
     */
    public int iaClose(MemorySegment ia, int flags) {
        try {
            return (int) iaClose.handle().invokeExact(ia, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ia_query(ia_handle, async_evd_handle, ia_attr_mask, ia_attr, provider_attr_mask,
     * provider_attr)}.
     *
     * @param ia the IA handle
     * @param asyncEvd out: the async EVD handle
     * @param iaMask which IA attributes
     * @param iaAttr a {@code DAT_IA_ATTR} to fill
     * @param providerMask which provider attributes
     * @param providerAttr a {@code DAT_PROVIDER_ATTR} to fill
     * @return the {@code DAT_RETURN}
     */
    public int iaQuery(MemorySegment ia, MemorySegment asyncEvd, long iaMask, MemorySegment iaAttr,
                       long providerMask, MemorySegment providerAttr) {
        try {
            return (int) iaQuery.handle().invokeExact(ia, asyncEvd, iaMask, iaAttr, providerMask, providerAttr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_strerror(value, major_message, minor_message)}.
     *
     * @param value a {@code DAT_RETURN}
     * @param major out: a pointer to a static C string
     * @param minor out: a pointer to a static C string
     * @return the {@code DAT_RETURN} of the call itself
     */
    public int strerror(int value, MemorySegment major, MemorySegment minor) {
        try {
            return (int) strerror.handle().invokeExact(value, major, minor);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_pz_create(ia, pzOut)}.
     *
     * @param ia as C takes it
     * @param pzOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int pzCreate(MemorySegment ia, MemorySegment pzOut) {
        try {
            return (int) pzCreate.handle().invokeExact(ia, pzOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_pz_free(pz)}.
     *
     * @param pz as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int pzFree(MemorySegment pz) {
        try {
            return (int) pzFree.handle().invokeExact(pz);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_pz_query(pz, mask, param)}.
     *
     * @param pz as C takes it
     * @param mask as C takes it
     * @param param as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int pzQuery(MemorySegment pz, int mask, MemorySegment param) {
        try {
            return (int) pzQuery.handle().invokeExact(pz, mask, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_lmr_create(ia, memType, region, length, pz, privileges, vaType, lmrOut, lmrContextOut, rmrContextOut,
     * registeredLengthOut, registeredAddressOut)}.
     *
     * @param ia as C takes it
     * @param memType as C takes it
     * @param region a 16-byte by-value union, as a segment
     * @param length as C takes it
     * @param pz as C takes it
     * @param privileges as C takes it
     * @param vaType as C takes it
     * @param lmrOut out: where C writes
     * @param lmrContextOut out: where C writes
     * @param rmrContextOut out: where C writes
     * @param registeredLengthOut out: where C writes
     * @param registeredAddressOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int lmrCreate(MemorySegment ia, int memType, MemorySegment region, long length, MemorySegment pz,
            int privileges, int vaType, MemorySegment lmrOut, MemorySegment lmrContextOut, MemorySegment rmrContextOut,
            MemorySegment registeredLengthOut, MemorySegment registeredAddressOut) {
        try {
            return (int) lmrCreate.handle().invokeExact(ia, memType, region, length, pz, privileges, vaType, lmrOut,
                    lmrContextOut, rmrContextOut, registeredLengthOut, registeredAddressOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_lmr_free(lmr)}.
     *
     * @param lmr as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int lmrFree(MemorySegment lmr) {
        try {
            return (int) lmrFree.handle().invokeExact(lmr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_lmr_query(lmr, mask, param)}.
     *
     * @param lmr as C takes it
     * @param mask as C takes it
     * @param param as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int lmrQuery(MemorySegment lmr, int mask, MemorySegment param) {
        try {
            return (int) lmrQuery.handle().invokeExact(lmr, mask, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_rmr_create(pz, rmrOut)}.
     *
     * @param pz as C takes it
     * @param rmrOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int rmrCreate(MemorySegment pz, MemorySegment rmrOut) {
        try {
            return (int) rmrCreate.handle().invokeExact(pz, rmrOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_rmr_free(rmr)}.
     *
     * @param rmr as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int rmrFree(MemorySegment rmr) {
        try {
            return (int) rmrFree.handle().invokeExact(rmr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_rmr_query(rmr, mask, param)}.
     *
     * @param rmr as C takes it
     * @param mask as C takes it
     * @param param as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int rmrQuery(MemorySegment rmr, int mask, MemorySegment param) {
        try {
            return (int) rmrQuery.handle().invokeExact(rmr, mask, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_rmr_bind(rmr, lmr, lmrTriplet, memPriv, vaType, ep, cookie, completionFlags, rmrContextOut)}.
     *
     * @param rmr as C takes it
     * @param lmr as C takes it
     * @param lmrTriplet as C takes it
     * @param memPriv as C takes it
     * @param vaType as C takes it
     * @param ep as C takes it
     * @param cookie as C takes it
     * @param completionFlags as C takes it
     * @param rmrContextOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int rmrBind(MemorySegment rmr, MemorySegment lmr, MemorySegment lmrTriplet, int memPriv, int vaType,
            MemorySegment ep, long cookie, int completionFlags, MemorySegment rmrContextOut) {
        try {
            return (int) rmrBind.handle().invokeExact(rmr, lmr, lmrTriplet, memPriv, vaType, ep, cookie,
                    completionFlags, rmrContextOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_create(ia, minQlen, cno, flags, evdOut)}.
     *
     * @param ia as C takes it
     * @param minQlen as C takes it
     * @param cno as C takes it
     * @param flags as C takes it
     * @param evdOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int evdCreate(MemorySegment ia, int minQlen, MemorySegment cno, int flags, MemorySegment evdOut) {
        try {
            return (int) evdCreate.handle().invokeExact(ia, minQlen, cno, flags, evdOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_free(evd)}.
     *
     * @param evd as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int evdFree(MemorySegment evd) {
        try {
            return (int) evdFree.handle().invokeExact(evd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_query(evd, mask, param)}.
     *
     * @param evd as C takes it
     * @param mask as C takes it
     * @param param as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int evdQuery(MemorySegment evd, int mask, MemorySegment param) {
        try {
            return (int) evdQuery.handle().invokeExact(evd, mask, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_resize(evd, minQlen)}.
     *
     * @param evd as C takes it
     * @param minQlen as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int evdResize(MemorySegment evd, int minQlen) {
        try {
            return (int) evdResize.handle().invokeExact(evd, minQlen);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_modify_cno(evd, cno)}.
     *
     * @param evd as C takes it
     * @param cno as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int evdModifyCno(MemorySegment evd, MemorySegment cno) {
        try {
            return (int) evdModifyCno.handle().invokeExact(evd, cno);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_post_se(evd, event)}.
     *
     * @param evd as C takes it
     * @param event as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int evdPostSe(MemorySegment evd, MemorySegment event) {
        try {
            return (int) evdPostSe.handle().invokeExact(evd, event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_dequeue(evd, event)}.
     *
     * @param evd as C takes it
     * @param event as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int evdDequeue(MemorySegment evd, MemorySegment event) {
        try {
            return (int) evdDequeue.handle().invokeExact(evd, event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_wait(evd, timeoutMicros, threshold, event, nMoreOut)}.
     *
     * @param evd as C takes it
     * @param timeoutMicros as C takes it
     * @param threshold as C takes it
     * @param event as C takes it
     * @param nMoreOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int evdWait(MemorySegment evd, int timeoutMicros, int threshold, MemorySegment event,
            MemorySegment nMoreOut) {
        try {
            return (int) evdWait.handle().invokeExact(evd, timeoutMicros, threshold, event, nMoreOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_enable(evd)}.
     *
     * @param evd as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int evdEnable(MemorySegment evd) {
        try {
            return (int) evdEnable.handle().invokeExact(evd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_disable(evd)}.
     *
     * @param evd as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int evdDisable(MemorySegment evd) {
        try {
            return (int) evdDisable.handle().invokeExact(evd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_set_unwaitable(evd)}.
     *
     * @param evd as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int evdSetUnwaitable(MemorySegment evd) {
        try {
            return (int) evdSetUnwaitable.handle().invokeExact(evd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_evd_clear_unwaitable(evd)}.
     *
     * @param evd as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int evdClearUnwaitable(MemorySegment evd) {
        try {
            return (int) evdClearUnwaitable.handle().invokeExact(evd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_cno_create(ia, agent, cnoOut)}.
     *
     * @param ia as C takes it
     * @param agent a 16-byte by-value union, as a segment
     * @param cnoOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int cnoCreate(MemorySegment ia, MemorySegment agent, MemorySegment cnoOut) {
        try {
            return (int) cnoCreate.handle().invokeExact(ia, agent, cnoOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_cno_free(cno)}.
     *
     * @param cno as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int cnoFree(MemorySegment cno) {
        try {
            return (int) cnoFree.handle().invokeExact(cno);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_cno_wait(cno, timeoutMicros, evdOut)}.
     *
     * @param cno as C takes it
     * @param timeoutMicros as C takes it
     * @param evdOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int cnoWait(MemorySegment cno, int timeoutMicros, MemorySegment evdOut) {
        try {
            return (int) cnoWait.handle().invokeExact(cno, timeoutMicros, evdOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_cno_modify_agent(cno, agent)}.
     *
     * @param cno as C takes it
     * @param agent a 16-byte by-value struct, as a segment
     * @return the {@code DAT_RETURN}
     */
    public int cnoModifyAgent(MemorySegment cno, MemorySegment agent) {
        try {
            return (int) cnoModifyAgent.handle().invokeExact(cno, agent);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_cno_query(cno, mask, param)}.
     *
     * @param cno as C takes it
     * @param mask as C takes it
     * @param param out: a {@code DAT_CNO_PARAM}
     * @return the {@code DAT_RETURN}
     */
    public int cnoQuery(MemorySegment cno, int mask, MemorySegment param) {
        try {
            return (int) cnoQuery.handle().invokeExact(cno, mask, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_create(ia, pz, recvEvd, requestEvd, connectEvd, attr, epOut)}.
     *
     * @param ia as C takes it
     * @param pz as C takes it
     * @param recvEvd as C takes it
     * @param requestEvd as C takes it
     * @param connectEvd as C takes it
     * @param attr as C takes it
     * @param epOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int epCreate(MemorySegment ia, MemorySegment pz, MemorySegment recvEvd, MemorySegment requestEvd,
            MemorySegment connectEvd, MemorySegment attr, MemorySegment epOut) {
        try {
            return (int) epCreate.handle().invokeExact(ia, pz, recvEvd, requestEvd, connectEvd, attr, epOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_free(ep)}.
     *
     * @param ep as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epFree(MemorySegment ep) {
        try {
            return (int) epFree.handle().invokeExact(ep);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_query(ep, mask, param)}.
     *
     * @param ep as C takes it
     * @param mask as C takes it
     * @param param as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epQuery(MemorySegment ep, long mask, MemorySegment param) {
        try {
            return (int) epQuery.handle().invokeExact(ep, mask, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_modify(ep, mask, param)}.
     *
     * @param ep as C takes it
     * @param mask as C takes it
     * @param param as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epModify(MemorySegment ep, long mask, MemorySegment param) {
        try {
            return (int) epModify.handle().invokeExact(ep, mask, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_connect(ep, remoteAddress, connQual, timeoutMicros, privateDataSize, privateData, qos, flags)}.
     *
     * @param ep as C takes it
     * @param remoteAddress as C takes it
     * @param connQual as C takes it
     * @param timeoutMicros as C takes it
     * @param privateDataSize as C takes it
     * @param privateData as C takes it
     * @param qos as C takes it
     * @param flags as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epConnect(MemorySegment ep, MemorySegment remoteAddress, long connQual, int timeoutMicros,
            int privateDataSize, MemorySegment privateData, int qos, int flags) {
        try {
            return (int) epConnect.handle().invokeExact(ep, remoteAddress, connQual, timeoutMicros, privateDataSize,
                    privateData, qos, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_dup_connect(ep, dupEp, timeoutMicros, privateDataSize, privateData, qos)}.
     *
     * @param ep as C takes it
     * @param dupEp as C takes it
     * @param timeoutMicros as C takes it
     * @param privateDataSize as C takes it
     * @param privateData as C takes it
     * @param qos as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epDupConnect(MemorySegment ep, MemorySegment dupEp, int timeoutMicros, int privateDataSize,
            MemorySegment privateData, int qos) {
        try {
            return (int) epDupConnect.handle().invokeExact(ep, dupEp, timeoutMicros, privateDataSize, privateData, qos);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_disconnect(ep, closeFlags)}.
     *
     * @param ep as C takes it
     * @param closeFlags as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epDisconnect(MemorySegment ep, int closeFlags) {
        try {
            return (int) epDisconnect.handle().invokeExact(ep, closeFlags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_reset(ep)}.
     *
     * @param ep as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epReset(MemorySegment ep) {
        try {
            return (int) epReset.handle().invokeExact(ep);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_get_status(ep, stateOut, recvIdleOut, requestIdleOut)}.
     *
     * @param ep as C takes it
     * @param stateOut out: the {@code DAT_EP_STATE}
     * @param recvIdleOut out: a {@code DAT_BOOLEAN}
     * @param requestIdleOut out: a {@code DAT_BOOLEAN}
     * @return the {@code DAT_RETURN}
     */
    public int epGetStatus(MemorySegment ep, MemorySegment stateOut, MemorySegment recvIdleOut,
            MemorySegment requestIdleOut) {
        try {
            return (int) epGetStatus.handle().invokeExact(ep, stateOut, recvIdleOut, requestIdleOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_post_send(ep, segments, localIov, cookie, completionFlags)}.
     *
     * @param ep as C takes it
     * @param segments as C takes it
     * @param localIov as C takes it
     * @param cookie as C takes it
     * @param completionFlags as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epPostSend(MemorySegment ep, int segments, MemorySegment localIov, long cookie, int completionFlags) {
        try {
            return (int) epPostSend.handle().invokeExact(ep, segments, localIov, cookie, completionFlags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_post_recv(ep, segments, localIov, cookie, completionFlags)}.
     *
     * @param ep as C takes it
     * @param segments as C takes it
     * @param localIov as C takes it
     * @param cookie as C takes it
     * @param completionFlags as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epPostRecv(MemorySegment ep, int segments, MemorySegment localIov, long cookie, int completionFlags) {
        try {
            return (int) epPostRecv.handle().invokeExact(ep, segments, localIov, cookie, completionFlags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_post_rdma_read(ep, segments, localIov, cookie, remoteIov, completionFlags)}.
     *
     * @param ep as C takes it
     * @param segments as C takes it
     * @param localIov as C takes it
     * @param cookie as C takes it
     * @param remoteIov as C takes it
     * @param completionFlags as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epPostRdmaRead(MemorySegment ep, int segments, MemorySegment localIov, long cookie,
            MemorySegment remoteIov, int completionFlags) {
        try {
            return (int) epPostRdmaRead.handle().invokeExact(ep, segments, localIov, cookie, remoteIov,
                    completionFlags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_ep_post_rdma_write(ep, segments, localIov, cookie, remoteIov, completionFlags)}.
     *
     * @param ep as C takes it
     * @param segments as C takes it
     * @param localIov as C takes it
     * @param cookie as C takes it
     * @param remoteIov as C takes it
     * @param completionFlags as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int epPostRdmaWrite(MemorySegment ep, int segments, MemorySegment localIov, long cookie,
            MemorySegment remoteIov, int completionFlags) {
        try {
            return (int) epPostRdmaWrite.handle().invokeExact(ep, segments, localIov, cookie, remoteIov,
                    completionFlags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_psp_create(ia, connQual, evd, flags, pspOut)}.
     *
     * @param ia as C takes it
     * @param connQual as C takes it
     * @param evd as C takes it
     * @param flags as C takes it
     * @param pspOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int pspCreate(MemorySegment ia, long connQual, MemorySegment evd, int flags, MemorySegment pspOut) {
        try {
            return (int) pspCreate.handle().invokeExact(ia, connQual, evd, flags, pspOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_psp_create_any(ia, connQualOut, evd, flags, pspOut)}.
     *
     * @param ia as C takes it
     * @param connQualOut out: where C writes
     * @param evd as C takes it
     * @param flags as C takes it
     * @param pspOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int pspCreateAny(MemorySegment ia, MemorySegment connQualOut, MemorySegment evd, int flags,
            MemorySegment pspOut) {
        try {
            return (int) pspCreateAny.handle().invokeExact(ia, connQualOut, evd, flags, pspOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_psp_free(psp)}.
     *
     * @param psp as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int pspFree(MemorySegment psp) {
        try {
            return (int) pspFree.handle().invokeExact(psp);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_psp_query(psp, mask, param)}.
     *
     * @param psp as C takes it
     * @param mask as C takes it
     * @param param as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int pspQuery(MemorySegment psp, int mask, MemorySegment param) {
        try {
            return (int) pspQuery.handle().invokeExact(psp, mask, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_rsp_create(ia, connQual, ep, evd, rspOut)}.
     *
     * @param ia as C takes it
     * @param connQual as C takes it
     * @param ep as C takes it
     * @param evd as C takes it
     * @param rspOut out: where C writes
     * @return the {@code DAT_RETURN}
     */
    public int rspCreate(MemorySegment ia, long connQual, MemorySegment ep, MemorySegment evd, MemorySegment rspOut) {
        try {
            return (int) rspCreate.handle().invokeExact(ia, connQual, ep, evd, rspOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_rsp_free(rsp)}.
     *
     * @param rsp as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int rspFree(MemorySegment rsp) {
        try {
            return (int) rspFree.handle().invokeExact(rsp);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_rsp_query(rsp, mask, param)}.
     *
     * @param rsp as C takes it
     * @param mask as C takes it
     * @param param as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int rspQuery(MemorySegment rsp, int mask, MemorySegment param) {
        try {
            return (int) rspQuery.handle().invokeExact(rsp, mask, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_cr_accept(cr, ep, privateDataSize, privateData)}.
     *
     * @param cr as C takes it
     * @param ep as C takes it
     * @param privateDataSize as C takes it
     * @param privateData as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int crAccept(MemorySegment cr, MemorySegment ep, int privateDataSize, MemorySegment privateData) {
        try {
            return (int) crAccept.handle().invokeExact(cr, ep, privateDataSize, privateData);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_cr_reject(cr, privateDataSize, privateData)}.
     *
     * @param cr as C takes it
     * @param privateDataSize as C takes it
     * @param privateData as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int crReject(MemorySegment cr, int privateDataSize, MemorySegment privateData) {
        try {
            return (int) crReject.handle().invokeExact(cr, privateDataSize, privateData);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_cr_query(cr, mask, param)}.
     *
     * @param cr as C takes it
     * @param mask as C takes it
     * @param param as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int crQuery(MemorySegment cr, int mask, MemorySegment param) {
        try {
            return (int) crQuery.handle().invokeExact(cr, mask, param);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dat_cr_handoff(cr, connQual)}.
     *
     * @param cr as C takes it
     * @param connQual as C takes it
     * @return the {@code DAT_RETURN}
     */
    public int crHandoff(MemorySegment cr, long connQual) {
        try {
            return (int) crHandoff.handle().invokeExact(cr, connQual);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
