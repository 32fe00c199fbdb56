// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal.ffm;

import static dat.provider.udapl.internal.ffm.CStruct.C_INT;
import static dat.provider.udapl.internal.ffm.CStruct.C_LONG;
import static dat.provider.udapl.internal.ffm.CStruct.C_POINTER;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

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

    private final MethodHandle listProviders;
    private final MethodHandle iaOpenv;
    private final MethodHandle iaClose;
    private final MethodHandle iaQuery;
    private final MethodHandle strerror;

    private LibDat2(SymbolLookup lookup) throws LibraryUnavailableException {
        Linker linker = Linker.nativeLinker();
        listProviders = find(linker, lookup, "dat_registry_list_providers",
                FunctionDescriptor.of(C_INT, C_INT, C_POINTER, C_POINTER));
        iaOpenv = find(linker, lookup, "dat_ia_openv", FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_POINTER,
                C_POINTER, C_INT, C_INT, C_INT));
        iaClose = find(linker, lookup, "dat_ia_close", FunctionDescriptor.of(C_INT, C_POINTER, C_INT));
        iaQuery = find(linker, lookup, "dat_ia_query", FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_LONG,
                C_POINTER, C_LONG, C_POINTER));
        strerror = find(linker, lookup, "dat_strerror", FunctionDescriptor.of(C_INT, C_INT, C_POINTER, C_POINTER));
    }

    /**
     * Loads the library.
     *
     * @param soname {@value #SONAME}, or another name or path (tests)
     * @return the bound functions
     * @throws LibraryUnavailableException when it does not load or lacks a function, with the fix
     */
    public static LibDat2 load(String soname) throws LibraryUnavailableException {
        quietProviderLog();
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(soname, Arena.global());
        } catch (IllegalArgumentException | IllegalCallerException e) {
            throw new LibraryUnavailableException(soname + " not found: " + INSTALL_HINT, e);
        }
        LibDat2 lib = new LibDat2(lookup);
        makeGlobal(soname);
        return lib;
    }

    /** The environment variable OFA's providers read their log mask from when they load. */
    public static final String DAPL_DBG_TYPE = "DAPL_DBG_TYPE";

    /**
     * Unless the user set {@value #DAPL_DBG_TYPE}, sets it to 0 in this process before any C provider loads. OFA's
     * providers log errors and warnings to standard output by default ("open_hca: ibv_get_device_list() failed" for
     * every {@code dat.conf} entry without its device), which would interleave with what the Java program prints
     * ({@code dat info --json} stops being JSON). Only the log changes: every status the C calls return reaches the
     * caller as before, and {@code DAPL_DBG_TYPE=0xffff} (or any mask) set by the user is left alone.
     */
    private static void quietProviderLog() {
        if (System.getenv(DAPL_DBG_TYPE) != null) {
            return;
        }
        Linker linker = Linker.nativeLinker();
        MemorySegment setenv = linker.defaultLookup().find("setenv").orElse(null);
        if (setenv == null) {
            return;
        }
        MethodHandle mh = linker.downcallHandle(setenv, FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT));
        try (Arena arena = Arena.ofConfined()) {
            int _ = (int) mh.invokeExact(arena.allocateFrom(DAPL_DBG_TYPE), arena.allocateFrom("0"), 0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
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

    private static MethodHandle find(Linker linker, SymbolLookup lookup, String name, FunctionDescriptor fd)
            throws LibraryUnavailableException {
        MemorySegment symbol = lookup.find(name).orElseThrow(() -> new LibraryUnavailableException(
                SONAME + " has no function " + name + ": not a DAT 2.0 registry; " + INSTALL_HINT, null));
        return linker.downcallHandle(symbol, fd);
    }

    private static int invoke(MethodHandle mh, Object... args) {
        try {
            return (int) mh.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
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
        return invoke(listProviders, maxToReturn, entriesReturned, providerList);
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
        return invoke(iaOpenv, name, asyncEvdQlen, asyncEvdHandle, iaHandle, DAT_VERSION_MAJOR, DAT_VERSION_MINOR,
                threadSafety);
    }

    /**
     * {@code dat_ia_close(ia_handle, close_flags)}.
     *
     * @param ia the IA handle
     * @param flags {@link #DAT_CLOSE_ABRUPT_FLAG} or {@link #DAT_CLOSE_GRACEFUL_FLAG}
     * @return the {@code DAT_RETURN}
     */
    public int iaClose(MemorySegment ia, int flags) {
        return invoke(iaClose, ia, flags);
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
        return invoke(iaQuery, ia, asyncEvd, iaMask, iaAttr, providerMask, providerAttr);
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
        return invoke(strerror, value, major, minor);
    }
}
