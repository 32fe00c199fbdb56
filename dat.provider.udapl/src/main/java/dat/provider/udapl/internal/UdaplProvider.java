// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;
import static dat.provider.udapl.internal.ffm.DatStructs.DAT_NAME_MAX_LENGTH;
import static dat.provider.udapl.internal.ffm.DatStructs.DAT_PROVIDER_INFO;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.udapl.internal.ffm.CStruct;
import dat.provider.udapl.internal.ffm.DatStatus;
import dat.provider.udapl.internal.ffm.DatStructs;
import dat.provider.udapl.internal.ffm.LibDat2;
import dat.provider.udapl.internal.ffm.LibraryUnavailableException;
import dat.spi.DatIaInfo;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The uDAPL bridge: one IA per entry of libdat2's static registry ({@code DAT_OVERRIDE}, else
 * {@code /etc/dat.conf}) that the C provider it names opens, under the entry's own IA name.
 *
 * <p>The constructor does nothing. The first {@link #info()} checks, in order and stopping at the first failure:
 * the platform; native access; that libdat2 loads; that its registry names an IA; then it opens each entry's IA
 * with {@code dat_ia_open}, reads {@code dat_ia_query}'s attributes and closes it again ({@code DAT_CLOSE_ABRUPT}).
 * An entry whose IA does not open (no device, a library the registry cannot load) is left out, and when none
 * opens, what each one returned is the unavailable reason. The result is cached per provider instance.
 */
public final class UdaplProvider implements DatProvider {

    /**
     * {@code DAT_PROVIDER_NOT_FOUND | DAT_NAME_NOT_REGISTERED}: what libdat2's {@code dat_ia_openv} returns when its
     * static registry could not {@code dlopen} the entry's library or the library's {@code dat_provider_init}
     * registered nothing.
     */
    static final int NOT_REGISTERED = 0x800a0064;

    private final Object lock = new Object();
    private Discovery discovery; // guarded by lock

    /** Creates the provider; does no work. */
    public UdaplProvider() {
    }

    /**
     * The outcome of the first {@link #info()}.
     *
     * @param info what {@link #info()} returns
     * @param entries every registry entry, with what opening it gave
     * @param lib the bound libdat2, {@code null} when unavailable before loading it
     */
    record Discovery(DatProviderInfo info, List<Entry> entries, LibDat2 lib) {
    }

    /**
     * One entry of libdat2's registry.
     *
     * @param iaName its IA name
     * @param threadSafe whether the entry's thread-safety field says thread-safe
     * @param ia the IA's description, {@code null} when it did not open
     * @param problem why it did not open, {@code null} when it did
     */
    record Entry(String iaName, boolean threadSafe, DatIaInfo ia, String problem) {
    }

    @Override
    public String name() {
        return UdaplConfig.PROVIDER_NAME;
    }

    @Override
    public DatProviderInfo info() {
        return discovery().info();
    }

    /** Describes an entry's IA; {@code iaParams} is reported back. */
    @Override
    public DatIaInfo describe(String iaName, String iaParams) {
        Discovery d = discovery();
        for (Entry e : d.entries()) {
            if (e.iaName().equals(iaName) && e.ia() != null) {
                DatIaInfo ia = e.ia();
                return new DatIaInfo(ia.iaName(), iaParams == null ? "" : iaParams, ia.providerAttr(), ia.iaAttr());
            }
        }
        throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                "provider " + name() + " offers no IA named " + iaName + why(d, iaName));
    }

    /** {@code dat_ia_open} of an entry that opened at discovery, through libdat2. */
    @Override
    public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
        Discovery d = discovery();
        for (Entry e : d.entries()) {
            if (e.iaName().equals(iaName) && e.ia() != null && d.lib() != null) {
                return UdaplIa.open(d.lib(), e, asyncEvdMinQlen);
            }
        }
        throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                "dat_ia_open: no IA named " + iaName + why(d, iaName));
    }

    private static String why(Discovery d, String iaName) {
        for (Entry e : d.entries()) {
            if (e.iaName().equals(iaName) && e.problem() != null) {
                return ": " + e.problem();
            }
        }
        return d.info().available() ? "" : " (" + d.info().unavailableReason() + ")";
    }

    Discovery discovery() {
        synchronized (lock) {
            if (discovery == null) {
                discovery = shared();
            }
            return discovery;
        }
    }

    /** The process's discovery, while the library setting stays the same. */
    private static Discovery shared;
    /** The {@code dat.udapl.libdat} value {@link #shared} was found with. */
    private static String sharedLibdat;

    /**
     * libdat2 reads its registry once per process, when it loads, so every provider instance (the registry makes one
     * per load) would find the same IAs; opening each of them again (Debian's default {@code dat.conf} has 60
     * entries, each a {@code dlopen} and a device probe) is done once per process and library setting instead.
     */
    private static Discovery shared() {
        synchronized (UdaplProvider.class) {
            String libdat = UdaplConfig.libdat();
            if (shared == null || !libdat.equals(sharedLibdat)) {
                shared = new UdaplProvider().discover();
                sharedLibdat = libdat;
            }
            return shared;
        }
    }

    /** Never throws: anything unexpected becomes the unavailable reason. */
    private Discovery discover() {
        try {
            return discoverOrThrow();
        } catch (RuntimeException | LinkageError e) {
            return unavailable("the uDAPL registry scan failed: " + e, List.of(), null);
        }
    }

    private Discovery discoverOrThrow() {
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.equals("Linux") || !(arch.equals("amd64") || arch.equals("aarch64"))) {
            return unavailable("the udapl bridge's DAT 2.0 layouts are verified for Linux on x86_64 and aarch64;"
                    + " this is " + os + " on " + arch, List.of(), null);
        }
        Module module = UdaplProvider.class.getModule();
        if (!module.isNativeAccessEnabled()) {
            return unavailable(module.isNamed() ? UdaplConfig.NATIVE_ACCESS_REASON
                    : UdaplConfig.NATIVE_ACCESS_UNNAMED_REASON, List.of(), null);
        }
        LibDat2 lib;
        try {
            lib = LibDat2.load(UdaplConfig.libdat());
        } catch (LibraryUnavailableException e) {
            return unavailable(e.getMessage(), List.of(), null);
        }
        List<Entry> entries = new ArrayList<>();
        for (String[] listed : list(lib)) {
            entries.add(probe(lib, listed[0], Boolean.parseBoolean(listed[1])));
        }
        if (entries.isEmpty()) {
            return unavailable(UdaplConfig.noEntryReason(), entries, lib);
        }
        List<DatIaInfo> ias = new ArrayList<>();
        Map<String, List<String>> problems = new LinkedHashMap<>();
        for (Entry e : entries) {
            if (e.ia() != null) {
                ias.add(e.ia());
            } else {
                problems.computeIfAbsent(e.problem(), k -> new ArrayList<>()).add(e.iaName());
            }
        }
        if (ias.isEmpty()) {
            return unavailable("no IA of libdat2's registry " + UdaplConfig.datConfPath() + " opens: "
                    + problems.entrySet().stream().map(p -> String.join(", ", p.getValue()) + ": " + p.getKey())
                    .collect(Collectors.joining("; ")), entries, lib);
        }
        return new Discovery(DatProviderInfo.available(name(), UdaplConfig.PROVIDER_VERSION, ias,
                UdaplConfig.settings()), entries, lib);
    }

    /** {@return the registry's entries as {IA name, thread safety}} */
    static List<String[]> list(LibDat2 lib) {
        try (Arena arena = Arena.ofConfined()) {
            int max = UdaplConfig.MAX_ENTRIES;
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment infos = arena.allocate(DAT_PROVIDER_INFO, max);
            MemorySegment pointers = arena.allocate(ValueLayout.ADDRESS, max);
            for (int k = 0; k < max; k++) {
                pointers.setAtIndex(ValueLayout.ADDRESS, k, infos.asSlice(DAT_PROVIDER_INFO.byteSize() * k));
            }
            int rc = lib.registryListProviders(max, count, pointers);
            if (!DatStatus.ok(rc)) {
                throw DatStatus.exception("dat_registry_list_providers", rc);
            }
            int n = Math.min(Math.max(count.get(ValueLayout.JAVA_INT, 0), 0), max);
            List<String[]> out = new ArrayList<>(n);
            for (int k = 0; k < n; k++) {
                MemorySegment info = infos.asSlice(DAT_PROVIDER_INFO.byteSize() * k, DAT_PROVIDER_INFO.byteSize());
                String ia = CStruct.string(info, offset(DAT_PROVIDER_INFO, "ia_name"), DAT_NAME_MAX_LENGTH);
                boolean safe = info.get(ValueLayout.JAVA_INT, offset(DAT_PROVIDER_INFO, "is_thread_safe")) != 0;
                out.add(new String[] {ia, Boolean.toString(safe)});
            }
            return out;
        }
    }

    /** Opens an entry's IA, queries it and closes it. */
    private Entry probe(LibDat2 lib, String iaName, boolean threadSafe) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocateFrom(iaName);
            MemorySegment evd = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment ia = arena.allocate(ValueLayout.ADDRESS);
            int rc = lib.iaOpenv(name, UdaplConfig.DISCOVERY_ASYNC_QLEN, evd, ia,
                    threadSafe ? LibDat2.DAT_TRUE : LibDat2.DAT_FALSE);
            if (!DatStatus.ok(rc)) {
                return new Entry(iaName, threadSafe, null, "dat_ia_open returned " + DatStatus.describe(rc)
                        + (rc == NOT_REGISTERED ? " (libdat2 could not load the entry's library, or the C provider"
                        + " found no device for it)" : ""));
            }
            MemorySegment handle = ia.get(ValueLayout.ADDRESS, 0);
            try {
                MemorySegment iaAttr = arena.allocate(DatStructs.DAT_IA_ATTR);
                MemorySegment providerAttr = arena.allocate(DatStructs.DAT_PROVIDER_ATTR);
                rc = lib.iaQuery(handle, evd, DatStructs.DAT_IA_FIELD_ALL, iaAttr, DatStructs.DAT_PROVIDER_FIELD_ALL,
                        providerAttr);
                if (!DatStatus.ok(rc)) {
                    return new Entry(iaName, threadSafe, null, "dat_ia_query returned " + DatStatus.describe(rc));
                }
                DatIaInfo info = UdaplAttributes.windowsProbed(lib, handle, new DatIaInfo(iaName, "",
                        UdaplAttributes.providerAttr(providerAttr, name()),
                        UdaplAttributes.iaAttr(iaAttr, InetAddress.getLoopbackAddress())));
                return new Entry(iaName, threadSafe, info, null);
            } catch (RuntimeException e) {
                return new Entry(iaName, threadSafe, null, "its attributes are not representable: " + e.getMessage());
            } finally {
                lib.iaClose(handle, LibDat2.DAT_CLOSE_ABRUPT_FLAG);
            }
        }
    }

    private Discovery unavailable(String reason, List<Entry> entries, LibDat2 lib) {
        return new Discovery(DatProviderInfo.unavailable(name(), UdaplConfig.PROVIDER_VERSION, reason,
                UdaplConfig.settings()), entries, lib);
    }
}
